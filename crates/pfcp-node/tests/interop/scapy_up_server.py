#!/usr/bin/env python3
"""A UP peer built with scapy's PFCP layer: answers a CP endpoint over a plain UDP socket.

    python3 scapy_up_server.py [--port N] [--max-seconds S] [--no-up-features] ...

Prints "PORT n" as the first stdout line, then one line per datagram:

    RECV mt=<type> seq=<n> from=<ip:port> hex=<datagram> <scapy summary JSON>
    SCAPY-ISSUE mt=<type> seq=<n>: <where scapy's reading disagrees with the bytes>
    SENT mt=<type> seq=<n> to=<ip:port> hex=<datagram>

Answers, all built with scapy.contrib.pfcp IE classes:
  * Association Setup Request -> Response: Node ID, Cause 1, Recovery Time Stamp and (unless
    --no-up-features) a 2-octet UP Function Features (FTUP);
  * Heartbeat Request -> Response with the Recovery Time Stamp;
  * Session Establishment / Modification / Deletion Request -> Response with Cause (1, or 65
    for an unknown SEID), the UP F-SEID (establishment), a Load Control Information
    (Sequence Number, Metric) and an Overload Control Information (Sequence Number, Metric,
    Timer, OCI Flags AOCI=1).
Other messages are logged and not answered. Runs until killed or --max-seconds.
"""

import argparse
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from interop_common import P, Decoded, header, node_id_ie, log  # noqa: E402

CAUSE_ACCEPTED = 1
CAUSE_SESSION_NOT_FOUND = 65


class Up(object):
    def __init__(self, args):
        self.a = args
        self.sessions = {}  # UP SEID -> CP SEID
        self.next_seid = 0x5C000001

    def lci(self):
        return P.IE_LoadControlInformation(IE_list=[
            P.IE_SequenceNumber(number=self.a.lci_seq),
            P.IE_Metric(metric=self.a.lci_metric),
        ])

    def oci(self):
        return P.IE_OverloadControlInformation(IE_list=[
            P.IE_SequenceNumber(number=self.a.oci_seq),
            P.IE_Metric(metric=self.a.oci_metric),
            P.IE_Timer(timer_unit=self.a.oci_timer_unit, timer_value=self.a.oci_timer_value),
            P.IE_OCIFlags(spare=0, AOCI=1),
        ])

    def answer(self, d):
        """scapy response packet for Decoded request `d`, or None."""
        p = d.pkt
        mt, seq = p.message_type, p.seq
        if p.version != 1:
            return header(11, seq)
        if mt == 1:
            return header(2, seq) / P.PFCPHeartbeatResponse(
                IE_list=[P.IE_RecoveryTimeStamp(timestamp=self.a.rts)])
        if mt == 5:
            ies = [node_id_ie(self.a.node_id), P.IE_Cause(cause=CAUSE_ACCEPTED),
                   P.IE_RecoveryTimeStamp(timestamp=self.a.rts)]
            if not self.a.no_up_features:
                # scapy cannot compute this IE's length itself: give it (2 octets).
                ies.append(P.IE_UPFunctionFeatures(length=2, FTUP=1, BUCP=0, DDND=0, DLBD=0,
                                                   TRST=0, PFDM=0, HEEU=0, TREU=0, EMPU=0,
                                                   PDIU=0, UDBC=0, QUOAC=0, TRACE=0, FRRT=0,
                                                   PFDE=0, spare=0))
            return header(6, seq) / P.PFCPAssociationSetupResponse(IE_list=ies)
        if mt == 50:
            f = d.ie(P.IE_FSEID)
            cp_seid = f.seid if f is not None else 0
            up_seid = self.next_seid
            self.next_seid += 1
            self.sessions[up_seid] = cp_seid
            return header(51, seq, seid=cp_seid) / P.PFCPSessionEstablishmentResponse(IE_list=[
                node_id_ie(self.a.node_id),
                P.IE_Cause(cause=CAUSE_ACCEPTED),
                P.IE_FSEID(v4=1, v6=0, spare=0, seid=up_seid, ipv4="127.0.0.1"),
                self.lci(),
                self.oci(),
            ])
        if mt in (52, 54):
            cp_seid = self.sessions.get(p.seid) if p.S == 1 else None
            cause = CAUSE_ACCEPTED if cp_seid is not None else CAUSE_SESSION_NOT_FOUND
            if mt == 54 and cp_seid is not None:
                del self.sessions[p.seid]
            body = P.PFCPSessionModificationResponse if mt == 52 else P.PFCPSessionDeletionResponse
            return header(mt + 1, seq, seid=cp_seid or 0) / body(IE_list=[
                P.IE_Cause(cause=cause), self.lci(), self.oci()])
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0, help="UDP port on 127.0.0.1 (0: ephemeral)")
    ap.add_argument("--max-seconds", type=float, default=60.0)
    ap.add_argument("--node-id", default="scapy-upf.example.org")
    ap.add_argument("--rts", type=lambda s: int(s, 0), default=0xE9005678)
    ap.add_argument("--no-up-features", action="store_true")
    ap.add_argument("--oci-seq", type=int, default=7)
    ap.add_argument("--oci-metric", type=int, default=40)
    ap.add_argument("--oci-timer-unit", type=int, default=1, help="1: minutes")
    ap.add_argument("--oci-timer-value", type=int, default=1)
    ap.add_argument("--lci-seq", type=int, default=7)
    ap.add_argument("--lci-metric", type=int, default=25)
    args = ap.parse_args()

    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", args.port))
    print("PORT %d" % sock.getsockname()[1], flush=True)
    up = Up(args)
    deadline = time.monotonic() + args.max_seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            log("scapy_up_server: --max-seconds reached")
            return 0
        sock.settimeout(min(left, 0.5))
        try:
            data, src = sock.recvfrom(65535)
        except socket.timeout:
            continue
        d = Decoded(data)
        if d.pkt is None:
            print("SCAPY-ISSUE mt=? seq=?: %s" % "; ".join(d.issues), flush=True)
            continue
        tag = "mt=%s seq=%d" % (d.pkt.message_type, d.pkt.seq)
        print("RECV %s from=%s:%d hex=%s %s" % (tag, src[0], src[1], data.hex(), d.json()),
              flush=True)
        for i in d.issues:
            print("SCAPY-ISSUE %s: %s" % (tag, i), flush=True)
        resp = up.answer(d)
        if resp is None:
            log("scapy_up_server: not answering message type %s" % d.pkt.message_type)
            continue
        out = bytes(resp)
        sock.sendto(out, src)
        print("SENT mt=%d seq=%d to=%s:%d hex=%s" % (resp.message_type, resp.seq, src[0], src[1],
                                                      out.hex()), flush=True)


if __name__ == "__main__":
    sys.exit(main())
