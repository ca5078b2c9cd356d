#!/usr/bin/env python3
"""Wireshark's reading of PFCP messages, IE by IE, for the session IE judge test.

Input: one hex PFCP payload per line on stdin. Output: one JSON line per payload:

  {"ws_flag": bool, "expert": [...], "ies": [IE, ...]}
  IE = {"type": int, "length": int, "fields": {"pfcp.x": ["show", ...], ...}, "ies": [IE, ...]}

`fields` holds every PDML field of the IE itself (its members are in `ies`, recursively),
by name, in order, with Wireshark's `show` text. `ws_flag` is true when Wireshark reported a
malformed packet or an error-level expert item, or did not find exactly one PFCP message.

Standard library only. The pcap writer and the PDML walk are adapted from the project's
oracle (`shared/oracle/pfcp_common.py`, `tshark_fields.py`), kept here so the repository's
tests do not depend on that folder.
"""

import ipaddress
import json
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

PORT = 8805
ERROR = 8388608


def checksum(hdr):
    s = sum(struct.unpack("!10H", hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def write_pcap(path, payloads):
    """Each payload as one IPv4/UDP datagram 127.0.0.1:8805 -> 127.0.0.2:8805 (LINKTYPE_RAW)."""
    src = ipaddress.IPv4Address("127.0.0.1").packed
    dst = ipaddress.IPv4Address("127.0.0.2").packed
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 101))
        for i, p in enumerate(payloads):
            udp = struct.pack("!HHHH", PORT, PORT, 8 + len(p), 0) + p
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i & 0xFFFF, 0, 64, 17, 0, src, dst)
            ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(ip + udp), len(ip + udp)))
            f.write(ip + udp)


def is_ie(elem):
    if elem.tag != "field" or elem.get("name") not in ("", None):
        return False
    first = elem.find("field")
    return first is not None and first.get("name") in ("pfcp.ie_type", "pfcp.enterprise_ie")


def fields_of(node, out):
    """Every named field under `node` that is not inside a member IE."""
    for c in node:
        if c.tag != "field":
            continue
        if is_ie(c):
            continue
        name = c.get("name")
        if name:
            out.setdefault(name, []).append(c.get("show"))
        fields_of(c, out)


def ie_of(node):
    t = node.find("field")
    ie = {"type": int(t.get("value"), 16), "length": None, "fields": {}, "ies": []}
    for c in node:
        if c.get("name") == "pfcp.ie_len":
            ie["length"] = int(c.get("show"))
    fields_of(node, ie["fields"])
    ie["ies"] = [ie_of(c) for c in node if is_ie(c)]
    return ie


def packet(pkt):
    res = {"ws_flag": False, "expert": [], "ies": []}
    msgs = [p for p in pkt.findall("proto") if p.get("name") == "pfcp"]
    if len(msgs) != 1:
        res["ws_flag"] = True
    for p in pkt.findall("proto"):
        if p.get("name") == "_ws.malformed":
            res["ws_flag"] = True
    for ex in pkt.iter("field"):
        if ex.get("name") != "_ws.expert":
            continue
        sev = msg = None
        for c in ex:
            if c.get("name") == "_ws.expert.severity":
                sev = int(c.get("show"))
            elif c.get("name") == "_ws.expert.message":
                msg = c.get("show")
        res["expert"].append(msg)
        if sev is not None and sev >= ERROR:
            res["ws_flag"] = True
    if msgs:
        res["ies"] = [ie_of(c) for c in msgs[0] if is_ie(c)]
    return res


def main():
    payloads = [bytes.fromhex(l.strip()) for l in sys.stdin if l.strip()]
    with tempfile.TemporaryDirectory() as td:
        path = td + "/judge.pcap"
        write_pcap(path, payloads)
        cmd = ["tshark", "-n", "-r", path, "-d", "udp.port==%d,pfcp" % PORT, "-T", "pdml"]
        proc = subprocess.run(cmd, capture_output=True, timeout=600, check=True)
    root = ET.fromstring(proc.stdout)
    pkts = root.findall("packet")
    if len(pkts) != len(payloads):
        sys.exit("tshark returned %d packets for %d payloads" % (len(pkts), len(payloads)))
    for p in pkts:
        print(json.dumps(packet(p)))


if __name__ == "__main__":
    main()
