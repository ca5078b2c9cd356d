"""Shared helpers of the scapy interop peers (scapy_up_client.py, scapy_up_server.py).

Decoding goes through scapy's own PFCP layer (scapy.contrib.pfcp, written against
3GPP TS 29.244 V15.6.0); this module only reduces scapy's view of a message to a small
summary and lists where scapy's reading is incomplete or inconsistent with the bytes:

* the header Message Length must equal the datagram length - 4 (scapy ignores it);
* every IE must map to a scapy IE class (no IE_NotImplemented / Raw), recursively;
* rebuilding scapy's dissection must give back the exact datagram (so scapy read every
  field where it was, and nothing was left over or reinterpreted).

Known scapy 2.8.0 limits (see /work/shared/oracle/README.md): PFCP() defaults to S=1, UP
Function Features needs an explicit `length`, Cause/Metric/Sequence Number ignore the IE
length, more than 100 IEs in one list raise MaximumItemsCount.
"""

import ipaddress
import json
import logging
import sys

logging.getLogger("scapy").setLevel(logging.ERROR)

from scapy.contrib import pfcp as P  # noqa: E402
from scapy.packet import Padding, Raw  # noqa: E402

# IE types whose decoded fields are shown in summaries (same choice as the oracle).
_FIELDS = {
    19: ("cause",),
    52: ("number",),
    53: ("metric",),
    55: ("timer_unit", "timer_value"),
    89: ("LOAD", "OVRL"),
    96: ("timestamp",),
    110: ("AOCI",),
    108: ("id",),
    56: ("id",),
    29: ("precedence",),
    20: ("interface",),
    40: ("type",),
}

UPFF_FLAGS = ["BUCP", "DDND", "DLBD", "TRST", "FTUP", "PFDM", "HEEU", "TREU",
              "EMPU", "PDIU", "UDBC", "QUOAC", "TRACE", "FRRT", "PFDE"]


def _norm_ip(s):
    try:
        return str(ipaddress.ip_address(s))
    except ValueError:
        return str(s)


def ie_summary(ie, issues, path, depth=0):
    """scapy IE -> dict; appends scapy decoding problems to `issues`."""
    if not isinstance(ie, P.IE_Base):
        issues.append("%s: octets scapy could not read as an IE: %s" % (path, bytes(ie).hex()))
        return {"unparsed": bytes(ie).hex()}
    t = ie.ietype
    d = {"type": t, "length": ie.length, "name": ie.name}
    if isinstance(ie, P.IE_NotImplemented):
        issues.append("%s: IE type %d unknown to scapy (IE_NotImplemented)" % (path, t))
        d["value"] = bytes(ie)[4:].hex()
        return d
    if isinstance(ie, P.IE_EnterpriseSpecific):
        d["enterprise_id"] = ie.enterprise_id
        d["value"] = bytes(ie)[4:].hex()
        return d
    if isinstance(ie, P.IE_Compound):
        if depth > 8:
            d["depth_limit"] = True
            return d
        d["ies"] = [ie_summary(c, issues, "%s/%d" % (path, t), depth + 1) for c in (ie.IE_list or [])]
        return d
    body = bytes(ie)[4:]
    d["value"] = body.hex()
    if t == 57:
        d["seid"] = ie.seid
        d["ipv4"] = _norm_ip(ie.ipv4) if ie.v4 else None
        d["ipv6"] = _norm_ip(ie.ipv6) if ie.v6 else None
    elif t == 60:
        d["node_id_type"] = ie.id_type
        if ie.id_type == 0:
            d["node_id"] = _norm_ip(ie.ipv4)
        elif ie.id_type == 1:
            d["node_id"] = _norm_ip(ie.ipv6)
        elif ie.id_type == 2:
            v = ie.id
            d["node_id"] = v.decode("latin-1") if isinstance(v, bytes) else v
    elif t == 43:
        d["flags"] = sorted(f for f in UPFF_FLAGS if f in ie.fields and ie.getfieldval(f) == 1)
    else:
        for f in _FIELDS.get(t, ()):
            v = ie.getfieldval(f)
            d[f.lower()] = v
    extra = ie.fields.get("extra_data") if hasattr(ie, "fields") else None
    if extra:
        d["extra_data"] = bytes(extra).hex()
    return d


class Decoded(object):
    """scapy's reading of one datagram."""

    def __init__(self, data):
        self.data = bytes(data)
        self.issues = []
        self.pkt = None
        self.body = None
        self.summary = None
        try:
            self.pkt = P.PFCP(self.data)
        except Exception as e:  # scapy raises only on truncated headers / huge lists
            self.issues.append("scapy raised %s: %s" % (type(e).__name__, e))
            return
        p = self.pkt
        if p.length != len(self.data) - 4:
            self.issues.append("header Message Length %d != datagram length - 4 = %d"
                               % (p.length, len(self.data) - 4))
        self.body = p.payload
        ies = []
        if isinstance(self.body, (Raw, Padding)) or not hasattr(self.body, "IE_list"):
            if len(self.body) > 0:
                self.issues.append("message type %s not dissected by scapy: body %s"
                                   % (p.message_type, bytes(self.body).hex()))
        else:
            for ie in (self.body.IE_list or []):
                ies.append(ie_summary(ie, self.issues, "msg"))
        self.summary = {
            "version": p.version,
            "message_type": p.message_type,
            "length": p.length,
            "seid": p.seid if p.S == 1 else None,
            "sequence": p.seq,
            "priority": p.priority if p.MP == 1 else None,
            "ies": ies,
        }
        try:
            rebuilt = bytes(p)
        except Exception as e:
            self.issues.append("scapy could not rebuild its dissection: %s" % e)
        else:
            if rebuilt != self.data:
                self.issues.append("scapy rebuild differs: got %s, received %s"
                                   % (rebuilt.hex(), self.data.hex()))

    # accessors on the scapy dissection ----------------------------------------------------
    def ies(self):
        if self.body is None or not hasattr(self.body, "IE_list"):
            return []
        return list(self.body.IE_list or [])

    def ie(self, cls):
        """first top-level IE of scapy class `cls` (None if absent)"""
        for i in self.ies():
            if isinstance(i, cls):
                return i
        return None

    def json(self):
        return dumps(self.summary)


def dumps(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def header(message_type, seq, seid=None, version=1):
    """PFCP header with scapy. seid None -> S=0 (scapy's default is S=1!)."""
    if seid is None:
        return P.PFCP(version=version, MP=0, S=0, message_type=message_type, seq=seq)
    return P.PFCP(version=version, MP=0, S=1, seid=seid, message_type=message_type, seq=seq)


def node_id_ie(node_id):
    """IE_NodeId from 'a.b.c.d', an IPv6 text or an FQDN."""
    try:
        a = ipaddress.ip_address(node_id)
    except ValueError:
        return P.IE_NodeId(id_type=2, id=node_id.encode())
    if a.version == 4:
        return P.IE_NodeId(id_type=0, ipv4=str(a))
    return P.IE_NodeId(id_type=1, ipv6=str(a))


def log(*a):
    print(*a, file=sys.stderr, flush=True)


__all__ = ["P", "Decoded", "dumps", "header", "node_id_ie", "log"]
