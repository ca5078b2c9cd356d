#!/usr/bin/env python3
"""Write the committed seed corpus fuzz/corpus/<target>/ from the PFCP oracle corpora.

Reads <oracle>/corpus/{valid,malformed,captures}.jsonl (one JSON object per line with "id"
and "hex") and writes one file per selected payload, named by its oracle id, so a seed can be
traced back to the oracle entry (and its "why", tags or capture source). Deterministic: the
same oracle gives the same files. Standard library only.

    python3 fuzz/gen_seeds.py [--oracle /work/shared/oracle] [--out fuzz/corpus]

Selection keeps the corpus small (a few hundred files, well under 2 MB) yet covering every
oracle category:

* one valid message per oracle tag set and one capture per message type, shared out between
  decode_message and roundtrip (only decodable messages reach roundtrip's checks);
* decode_message: 4 malformed entries (up to 4 KiB) per malformed category, plus two
  resource bombs above 4 KiB (the smallest depth bomb and IE-count bomb);
* roundtrip: 2 per "semantic"/"spec_tolerated" category (they decode but may not be
  canonical: spare bits, MP without S, ...);
* datagram: 3 per framing category (trailing data, truncations, length errors), FO bundles of
  2 and 3 valid messages, one bundle ending with FO=1, a few single messages;
* typed_ie: up to 6 IEs of each typed kind (Cause, Node ID, F-SEID, OCI, LCI, Timer, and the
  session IEs: Create PDR, PDI, F-TEID, UE IP Address, Outer Header Creation, ..., found
  anywhere inside the typed groups) from valid messages and captures, plus those of malformed
  IE-content entries, as <type: 2 octets><body>, de-duplicated;
* decode_message and roundtrip also get up to 3 captures per session message type (50..57), so
  that the session rules of real SMFs and UPFs reach the message-level checks.

Files the previous run wrote are removed first (only names this script produces: valid-*,
malformed-*, capture-*, seed-*), so libFuzzer's own files in the same directory are kept.
"""

import argparse
import json
import os
import sys
from collections import defaultdict

TARGETS = ("decode_message", "roundtrip", "datagram", "typed_ie")
PREFIXES = ("valid-", "malformed-", "capture-", "seed-")
MAX_SEED = 4096
# Typed IE types of pfcp-wire (the typed column of crates/pfcp-wire/data/ie_types.tsv):
# Cause, Offending IE, UP FF, Node ID, F-SEID, LCI, Sequence Number, Metric, OCI, Timer, RTS,
# CP FF, OCI Flags, and the session IEs (rules, their members, reports).
SESSION_GROUPED = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 78, 79, 80, 83,
                   85, 86, 87}
SESSION_VALUE = {20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 37, 39, 42, 44, 46, 56, 62,
                 63, 66, 67, 73, 74, 81, 84, 88, 93, 95, 104, 108, 109, 124}
TYPED = {19, 40, 43, 60, 57, 51, 52, 53, 54, 55, 96, 89, 110} | SESSION_GROUPED | SESSION_VALUE
GROUPED_TYPED = {51, 54} | SESSION_GROUPED


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def ies(body):
    """Top-level (type, value) pairs of an IE list; stops at the first framing error."""
    out = []
    i = 0
    while i + 4 <= len(body):
        t = int.from_bytes(body[i : i + 2], "big")
        n = int.from_bytes(body[i + 2 : i + 4], "big")
        if i + 4 + n > len(body):
            break
        out.append((t, body[i + 4 : i + 4 + n]))
        i += 4 + n
    return out


def message_ies(msg):
    if len(msg) < 8:
        return []
    hl = 16 if msg[0] & 1 else 8
    total = int.from_bytes(msg[2:4], "big") + 4
    return ies(msg[hl:total])


def typed_ies(msg):
    """(type, value) of every typed IE at top level and, recursively, inside typed groups."""

    def walk(items, depth):
        for t, v in items:
            if t in TYPED:
                yield t, v
            if t in GROUPED_TYPED and depth < 8:
                yield from walk(ies(v), depth + 1)

    yield from walk(message_ies(msg), 0)


def with_fo(msg):
    """The message with the FO flag set."""
    return bytes([msg[0] | 0x04]) + msg[1:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--oracle", default=os.environ.get("PFCP_ORACLE", "/work/shared/oracle"))
    ap.add_argument("--out", default=os.path.join(here, "corpus"))
    args = ap.parse_args()

    corpus = os.path.join(args.oracle, "corpus")
    valid = load(os.path.join(corpus, "valid.jsonl"))
    malformed = load(os.path.join(corpus, "malformed.jsonl"))
    # Only captures every copy of which comes from a repository under a licence that lets us
    # redistribute bytes of them (captures/mit/): the AGPL ones must not be copied into this
    # repository (captures/SOURCES.md); tests read those from the oracle folder at run time.
    captures = [
        r
        for r in load(os.path.join(corpus, "captures.jsonl"))
        if r.get("sources")
        and all(str(s.get("file", "")).startswith("captures/mit/") for s in r["sources"])
    ]
    for rows in (valid, malformed, captures):
        for r in rows:
            r["bytes"] = bytes.fromhex(r["hex"])

    seeds = {t: {} for t in TARGETS}

    def add(target, name, data):
        if data not in seeds[target].values():
            seeds[target][name] = data

    def per_key(rows, key, limit):
        """The first `limit` rows of each key, in input order."""
        seen = defaultdict(int)
        out = []
        for r in rows:
            k = key(r)
            if seen[k] < limit:
                seen[k] += 1
                out.append(r)
        return out

    # One valid message per tag set (110 sets), split between decode_message and roundtrip.
    valid_pick = per_key(valid, lambda r: tuple(sorted(r.get("tags", []))), 1)
    # One capture per (message type, S flag).
    capture_pick = per_key(captures, lambda r: (r["bytes"][1:2], r["bytes"][:1] and r["bytes"][0] & 1), 1)
    small = [r for r in malformed if len(r["bytes"]) <= MAX_SEED]
    by_category = lambda r: r["category"]
    # The smallest depth bomb and IE-count bomb above 4 KiB.
    bombs = []
    for cat in ("depth_bomb", "huge_ie_count"):
        big = [r for r in malformed if r["category"] == cat and len(r["bytes"]) > MAX_SEED]
        if big:
            bombs.append(min(big, key=lambda r: (len(r["bytes"]), r["id"])))

    # Session messages of the captures (rules, reports), a few per type.
    session_pick = per_key(
        [r for r in captures if len(r["bytes"]) > 1 and 50 <= r["bytes"][1] <= 57],
        lambda r: r["bytes"][1],
        3,
    )
    for r in valid_pick[::2] + capture_pick + session_pick + per_key(small, by_category, 4) + bombs:
        add("decode_message", r["id"], r["bytes"])

    tolerated = [r for r in small if r["class"] in ("semantic", "spec_tolerated")]
    for r in valid_pick[1::2] + capture_pick + session_pick + per_key(tolerated, by_category, 2):
        add("roundtrip", r["id"], r["bytes"])

    framing = [r for r in small if r["class"] == "framing"]
    for r in per_key(framing, by_category, 3) + valid_pick[::10]:
        add("datagram", r["id"], r["bytes"])
    # FO bundles of consecutive valid messages, 2 and 3 at a time, FO=1 on all but the last;
    # one bundle that ends with FO=1 (the sender announced a message that is not there).
    msgs = [r for r in valid_pick if len(r["bytes"]) <= 256]
    for i in range(0, min(len(msgs) - 2, 60), 3):
        a, b, c = (m["bytes"] for m in msgs[i : i + 3])
        ids = [m["id"] for m in msgs[i : i + 3]]
        add("datagram", "seed-fo2-%s-%s" % tuple(ids[:2]), with_fo(a) + b)
        add("datagram", "seed-fo3-%s-%s-%s" % tuple(ids), with_fo(a) + with_fo(b) + c)
    if len(msgs) >= 2:
        a, b = msgs[0]["bytes"], msgs[1]["bytes"]
        add("datagram", "seed-fo-dangling-%s" % msgs[0]["id"], with_fo(a) + with_fo(b))

    # Typed IEs: at most 6 distinct bodies per type from valid messages and captures, plus those
    # of the IE-content malformed entries (2 per category: short, bad Node ID, bad F-SEID, ...).
    per_ie = defaultdict(int)
    for r in valid + captures:
        for t, v in typed_ies(r["bytes"]):
            data = t.to_bytes(2, "big") + v
            if per_ie[t] < 6 and data not in seeds["typed_ie"].values():
                per_ie[t] += 1
                add("typed_ie", "seed-ie%d-%s" % (t, r["id"]), data)
    content = [r for r in small if r["class"] in ("ie_content", "spec_tolerated", "semantic")]
    for r in per_key(content, by_category, 2):
        for n, (t, v) in enumerate(typed_ies(r["bytes"])):
            add("typed_ie", "seed-ie%d-%s-%d" % (t, r["id"], n), t.to_bytes(2, "big") + v)

    total_files = 0
    total_bytes = 0
    for target in TARGETS:
        d = os.path.join(args.out, target)
        os.makedirs(d, exist_ok=True)
        for name in os.listdir(d):
            if name.startswith(PREFIXES):
                os.remove(os.path.join(d, name))
        for name, data in sorted(seeds[target].items()):
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
            total_bytes += len(data)
        total_files += len(seeds[target])
        print("%-15s %4d seeds" % (target, len(seeds[target])))
    print("total           %4d files, %d octets" % (total_files, total_bytes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
