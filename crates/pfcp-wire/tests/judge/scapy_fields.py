#!/usr/bin/env python3
"""scapy's reading of PFCP messages, IE by IE, for the second session IE judge.

Input: one hex PFCP payload per line on stdin. Output: one JSON line per payload:

  {"error": null | "...", "ies": [IE, ...]}
  IE = {"type": int, "class": "IE_...", "fields": {name: value, ...}, "ies": [IE, ...]}

`fields` are the scapy fields of the IE layer (ints, IP addresses as text, bytes as hex);
members of grouped IEs are in `ies`. Needs scapy (`pip install scapy==2.8.0`).
"""

import json
import logging
import sys

logging.getLogger("scapy").setLevel(logging.ERROR)
from scapy.contrib import pfcp  # noqa: E402


def plain(v):
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, (int, str)) or v is None:
        return v
    return str(v)


def ie_of(layer):
    ie = {"type": int(layer.ietype), "class": type(layer).__name__, "fields": {}, "ies": []}
    for k, v in layer.fields.items():
        if k in ("ietype", "length", "IE_list"):
            continue
        ie["fields"][k] = plain(v)
    members = getattr(layer, "IE_list", None)
    if members:
        ie["ies"] = [ie_of(m) for m in members]
    return ie


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        out = {"error": None, "ies": []}
        try:
            msg = pfcp.PFCP(bytes.fromhex(line))
            body = msg.payload
            out["ies"] = [ie_of(ie) for ie in (getattr(body, "IE_list", None) or [])]
        except Exception as e:  # report, the test fails on it
            out["error"] = repr(e)
        print(json.dumps(out))


if __name__ == "__main__":
    main()
