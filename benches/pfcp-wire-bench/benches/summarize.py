#!/usr/bin/env python3
"""Tabulate a `cargo bench -p pfcp-wire --bench codec` run (and optionally icount.sh output).

    python3 crates/pfcp-wire/benches/summarize.py [target/criterion] [icount.tsv]

Reads criterion's benchmark.json / estimates.json (median of the samples, ns per iteration) and
prints Markdown tables: per group, pfcp-wire and its peers side by side with the ratio
pfcp-wire / peer, and decode_walk against the bare TLV walk of the same run.
"""
import json
import os
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
icount_path = sys.argv[2] if len(sys.argv) > 2 else None

res = {}  # (group, function, message) -> median ns
for dirpath, _dirs, files in os.walk(root):
    if "benchmark.json" in files and os.path.basename(dirpath) == "new":
        with open(os.path.join(dirpath, "benchmark.json")) as f:
            b = json.load(f)
        with open(os.path.join(dirpath, "estimates.json")) as f:
            e = json.load(f)
        group = b["group_id"]
        func = b["function_id"]
        msg = b["value_str"]
        res[(group, func, msg)] = e["median"]["point_estimate"]

ORDER = ["hb_req", "assoc_setup_req", "sess_est_req", "sess_est_req_10", "sess_est_rsp",
         "sess_est_rsp_rej", "sess_mod_rsp", "sess_rpt_req"]


def msgs(group):
    present = {m for (g, _f, m) in res if g == group}
    return [m for m in ORDER if m in present]


def ns(v):
    return "—" if v is None else (f"{v:.1f}" if v < 100 else f"{v:.0f}")


def ratio(a, b):
    return "—" if a is None or b is None else f"{a / b:.2f}"


def table(group, ours, peers, title=None):
    print(f"### {title or group}\n")
    head = ["message", f"{ours} ns"] + [f"{p} ns" for p in peers] + [f"{ours} / {p}" for p in peers]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for m in msgs(group):
        a = res.get((group, ours, m))
        vs = [res.get((group, p, m)) for p in peers]
        row = [m, ns(a)] + [ns(v) for v in vs] + [ratio(a, v) for v in vs]
        print("| " + " | ".join(row) + " |")
    print()


table("decode_header", "pfcp-wire", ["rs-pfcp", "floor"])
table("decode_walk", "pfcp-wire", ["rs-pfcp/parse+children", "rs-pfcp/parse"],
      "decode_walk (every IE at every level)")
table("decode_walk", "pfcp-wire/top", ["rs-pfcp/parse"], "decode_walk (top-level IEs only)")
table("decode_typed_oci_lci", "pfcp-wire/lci", ["rs-pfcp/lci"])
table("decode_typed_oci_lci", "pfcp-wire/oci+lci", ["rs-pfcp/lci"], "decode_typed_oci_lci (OCI+LCI)")
table("encode", "pfcp-wire", ["rs-pfcp/build+marshal", "rs-pfcp/marshal-prebuilt"])

print("### decode_walk vs bare_tlv_walk (floor)\n")
print("| message | floor ns | pfcp-wire ns | pfcp-wire / floor | rs-pfcp/parse / floor |")
print("|---|---|---|---|---|")
for m in msgs("bare_tlv_walk"):
    f = res.get(("bare_tlv_walk", "floor", m))
    w = res.get(("decode_walk", "pfcp-wire", m))
    r = res.get(("decode_walk", "rs-pfcp/parse", m))
    print(f"| {m} | {ns(f)} | {ns(w)} | {ratio(w, f)} | {ratio(r, f)} |")
print()

if icount_path:
    ic = {}
    with open(icount_path) as f:
        next(f)
        for line in f:
            op, m, n = line.split()
            ic[(op, m)] = int(n)

    def itable(title, ours, peers):
        print(f"### {title} (instructions per operation)\n")
        head = ["message", ours] + peers + [f"{ours} / {p}" for p in peers]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for m in ORDER:
            a = ic.get((ours, m))
            if a is None:
                continue
            vs = [ic.get((p, m)) for p in peers]
            row = [m, str(a)] + ["—" if v is None else str(v) for v in vs] + [ratio(a, v) for v in vs]
            print("| " + " | ".join(row) + " |")
        print()

    itable("header", "wire-header", ["rs-header", "floor-header"])
    itable("decode_walk, every level", "wire-walk", ["rs-parse-children", "floor-walk"])
    itable("decode_walk, top level", "wire-top", ["rs-parse"])
    itable("typed LCI", "wire-lci", ["rs-lci"])
    itable("typed OCI+LCI", "wire-oci-lci", ["rs-lci"])
    itable("encode", "wire-encode", ["rs-encode", "rs-marshal-prebuilt"])
