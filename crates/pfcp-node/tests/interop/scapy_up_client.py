#!/usr/bin/env python3
"""A CP peer built with scapy's PFCP layer, talking to a UP endpoint over plain UDP sockets.

    python3 scapy_up_client.py --target 127.0.0.1:PORT [--expect-rts N] [--expect-node-id ID]

Steps (each request's response is dissected by scapy and checked):
 1. Association Setup Request (Node ID, Recovery Time Stamp, CP Function Features LOAD|OVRL)
    -> Association Setup Response: Cause 1, Node ID, Recovery Time Stamp;
 2. Heartbeat Request -> Heartbeat Response with the UP's Recovery Time Stamp, same sequence;
 3. Session Establishment Request (Node ID, CP F-SEID, Create PDR, Create FAR)
    -> Session Establishment Response: Cause 1, header SEID = the CP SEID, same sequence;
 4. Session Modification Request with version 2 -> Version Not Supported Response;
 5. from a second socket that never associated: Session Establishment Request -> Cause 72;
 6. with --burst N: N Session Establishment Requests at once from the associated socket; every
    response must be Cause 1 or 74 with the right SEID and sequence, and with --expect-oci /
    --expect-lci at least one must carry an Overload / Load Control Information whose members
    scapy reads (Sequence Number, Metric 0..100, Timer, OCI Flags): the UP's own OCI/LCI.

Every received message must also be read by scapy without loss (see interop_common.Decoded).
Prints scapy's summary of every response ("RECV ..." lines) on stdout. Exit code 0 when every
check passes; 1 with "FAIL: ..." on stderr at the first failure; 2 on usage errors.
"""

import argparse
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from interop_common import P, Decoded, header, node_id_ie, log  # noqa: E402

CP_NODE_ID = "scapy-smf.example.org"
CP_RTS = 0xE9001234
CP_SEID = 0x1122334455667788
CP_SEID_UNASSOCIATED = 0x0102030405060708
CAUSE_ACCEPTED = 1
CAUSE_NO_ASSOCIATION = 72
CAUSE_CONGESTION = 74
# Request message types an endpoint may send us unasked (heartbeat, association, node and
# session reports).
REQUEST_TYPES = (1, 5, 7, 9, 12, 50, 52, 54, 56)


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def exchange(sock, target, pkt, label, timeout):
    """Send scapy packet `pkt`, return Decoded of the response with the same sequence number."""
    data = bytes(pkt)
    seq = pkt.seq
    print("SEND %s seq=%d %s" % (label, seq, data.hex()), flush=True)
    sock.sendto(data, target)
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        check(left > 0, "%s: no response within %.1f s" % (label, timeout))
        sock.settimeout(left)
        try:
            reply, src = sock.recvfrom(65535)
        except socket.timeout:
            raise Failure("%s: no response within %.1f s" % (label, timeout))
        d = Decoded(reply)
        summary = d.json() if d.summary is not None else "null"
        print("RECV %s from=%s:%d %s %s" % (label, src[0], src[1], reply.hex(), summary), flush=True)
        for i in d.issues:
            print("SCAPY-ISSUE %s: %s" % (label, i), flush=True)
        if d.pkt is None:
            raise Failure("%s: scapy could not dissect the response %s" % (label, reply.hex()))
        if d.pkt.message_type in REQUEST_TYPES or d.pkt.seq != seq:
            # a request from the endpoint (e.g. its own heartbeat) or a stale answer
            log("%s: ignoring message type %s seq %d" % (label, d.pkt.message_type, d.pkt.seq))
            continue
        check(not d.issues, "%s: scapy's reading of the response disagrees with the bytes: %s"
              % (label, "; ".join(d.issues)))
        return d


def check_header(d, label, message_type, seq, seid=None, version=1):
    p = d.pkt
    check(p.version == version, "%s: version %d, expected %d" % (label, p.version, version))
    check(p.message_type == message_type,
          "%s: message type %s, expected %d" % (label, p.message_type, message_type))
    check(p.seq == seq, "%s: sequence number %d, expected %d (copied from the request)"
          % (label, p.seq, seq))
    if seid is None:
        check(p.S == 0, "%s: S=1 on a node message" % label)
    else:
        check(p.S == 1, "%s: S=0 on a session message" % label)
        check(p.seid == seid, "%s: header SEID %#x, expected %#x" % (label, p.seid, seid))


def check_cause(d, label, cause):
    ie = d.ie(P.IE_Cause)
    check(ie is not None, "%s: no Cause IE" % label)
    check(ie.length == 1, "%s: Cause IE length %d, expected 1" % (label, ie.length))
    check(ie.cause == cause, "%s: cause %s, expected %d" % (label, ie.cause, cause))


def node_id_text(ie):
    if ie.id_type == 0:
        return str(ie.ipv4)
    if ie.id_type == 1:
        return str(ie.ipv6)
    v = ie.id
    return v.decode("latin-1") if isinstance(v, bytes) else str(v)


def check_node_id(d, label, expect):
    ie = d.ie(P.IE_NodeId)
    check(ie is not None, "%s: no Node ID IE" % label)
    got = node_id_text(ie)
    if expect is not None:
        check(got == expect, "%s: Node ID %r, expected %r" % (label, got, expect))
    return got


def establishment_request(seq, cp_seid):
    pdi = P.IE_PDI(IE_list=[P.IE_SourceInterface(interface=0)])
    create_pdr = P.IE_CreatePDR(IE_list=[
        P.IE_PDR_Id(id=1),
        P.IE_Precedence(precedence=255),
        pdi,
        P.IE_FAR_Id(id=1),
    ])
    create_far = P.IE_CreateFAR(IE_list=[
        P.IE_FAR_Id(id=1),
        P.IE_ApplyAction(spare=0, FORW=1),
    ])
    return header(50, seq, seid=0) / P.PFCPSessionEstablishmentRequest(IE_list=[
        node_id_ie(CP_NODE_ID),
        P.IE_FSEID(v4=1, v6=0, spare=0, seid=cp_seid, ipv4="127.0.0.1"),
        create_pdr,
        create_far,
    ])


def check_group(ie, label, members):
    """scapy's reading of an OCI/LCI: {member class name: IE}; every member known to scapy."""
    got = {}
    for m in (ie.IE_list or []):
        check(isinstance(m, P.IE_Base) and not isinstance(m, P.IE_NotImplemented),
              "%s: %s member not read by scapy: %s" % (label, ie.name, bytes(m).hex()))
        got.setdefault(type(m).__name__, m)
    for cls in members:
        check(cls.__name__ in got, "%s: %s without %s (members: %s)"
              % (label, ie.name, cls.__name__, sorted(got)))
    seq = got["IE_SequenceNumber"]
    check(seq.length == 4, "%s: Sequence Number length %d" % (label, seq.length))
    metric = got["IE_Metric"]
    check(metric.length == 1, "%s: Metric length %d" % (label, metric.length))
    check(0 <= metric.metric <= 100, "%s: Metric %d above 100" % (label, metric.metric))
    return got


def burst(sock, target, args, first_seq):
    """Phase 6: N establishments at once; collect scapy's reading of the OCIs/LCIs."""
    label = "burst"
    expected = {}
    datagrams = []
    # Built first, then sent back to back: building with scapy takes about 0.5 ms a packet,
    # which would pace the "burst" at the UP's capacity.
    for i in range(args.burst):
        seq = first_seq + i
        cp_seid = 0x5EED000000000000 + seq
        datagrams.append(bytes(establishment_request(seq, cp_seid)))
        expected[seq] = cp_seid
    for data in datagrams:
        sock.sendto(data, target)
    print("SEND %s: %d Session Establishment Requests, sequence %d..%d"
          % (label, args.burst, first_seq, first_seq + args.burst - 1), flush=True)
    ocis, lcis, causes = [], [], {}
    deadline = time.monotonic() + args.timeout + args.burst * 0.2
    while expected:
        left = deadline - time.monotonic()
        check(left > 0, "%s: no response to sequence numbers %s" % (label, sorted(expected)))
        sock.settimeout(left)
        try:
            reply, src = sock.recvfrom(65535)
        except socket.timeout:
            raise Failure("%s: no response to sequence numbers %s" % (label, sorted(expected)))
        d = Decoded(reply)
        summary = d.json() if d.summary is not None else "null"
        print("RECV %s from=%s:%d %s %s" % (label, src[0], src[1], reply.hex(), summary), flush=True)
        for i in d.issues:
            print("SCAPY-ISSUE %s: %s" % (label, i), flush=True)
        check(d.pkt is not None and not d.issues,
              "%s: scapy's reading of %s disagrees with the bytes: %s"
              % (label, reply.hex(), "; ".join(d.issues)))
        if d.pkt.message_type in REQUEST_TYPES:
            # a request from the endpoint (e.g. its own heartbeat), as in exchange()
            log("%s: ignoring message type %s seq %d" % (label, d.pkt.message_type, d.pkt.seq))
            continue
        seq = d.pkt.seq
        check(seq in expected, "%s: response with unexpected sequence %d" % (label, seq))
        check_header(d, label, 51, seq, seid=expected.pop(seq))
        cause = d.ie(P.IE_Cause)
        check(cause is not None and cause.cause in (CAUSE_ACCEPTED, CAUSE_CONGESTION),
              "%s: cause %s" % (label, None if cause is None else cause.cause))
        causes[cause.cause] = causes.get(cause.cause, 0) + 1
        oci = d.ie(P.IE_OverloadControlInformation)
        if oci is not None:
            got = check_group(oci, label, [P.IE_SequenceNumber, P.IE_Metric, P.IE_Timer])
            t = got["IE_Timer"]
            check(t.length == 1, "%s: Timer length %d" % (label, t.length))
            flags = got.get("IE_OCIFlags")
            ocis.append((got["IE_SequenceNumber"].number, got["IE_Metric"].metric,
                         t.timer_unit, t.timer_value, None if flags is None else flags.AOCI))
        lci = d.ie(P.IE_LoadControlInformation)
        if lci is not None:
            got = check_group(lci, label, [P.IE_SequenceNumber, P.IE_Metric])
            lcis.append((got["IE_SequenceNumber"].number, got["IE_Metric"].metric))
    for o in ocis:
        print("OCI %s: sequence %d metric %d timer unit %d value %d AOCI %s" % ((label,) + o),
              flush=True)
    for l in lcis:
        print("LCI %s: sequence %d metric %d" % ((label,) + l), flush=True)
    check(not args.expect_oci or ocis, "%s: no response carried an OCI" % label)
    check(not args.expect_lci or lcis, "%s: no response carried an LCI" % label)
    print("OK %s: causes %s, %d OCI, %d LCI" % (label, causes, len(ocis), len(lcis)), flush=True)


def run(args):
    host, _, port = args.target.rpartition(":")
    target = (host.strip("[]"), int(port))
    family = socket.AF_INET6 if ":" in target[0] else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_DGRAM)
    # A burst's answers arrive faster than scapy dissects them: without room for all of them
    # our own socket would drop what the UP sent (SO_RCVBUFFORCE passes rmem_max as root).
    for opt in (getattr(socket, "SO_RCVBUFFORCE", None), socket.SO_RCVBUF):
        if opt is None:
            continue
        try:
            sock.setsockopt(socket.SOL_SOCKET, opt, 8 << 20)
            break
        except OSError:
            pass
    sock.bind(("::1" if family == socket.AF_INET6 else "127.0.0.1", 0))
    t = args.timeout

    # 1. Association Setup.
    label = "association-setup"
    req = header(5, 1) / P.PFCPAssociationSetupRequest(IE_list=[
        node_id_ie(CP_NODE_ID),
        P.IE_RecoveryTimeStamp(timestamp=CP_RTS),
        P.IE_CPFunctionFeatures(spare=0, LOAD=1, OVRL=1),
    ])
    d = exchange(sock, target, req, label, t)
    check_header(d, label, 6, 1)
    check_cause(d, label, CAUSE_ACCEPTED)
    up_node = check_node_id(d, label, args.expect_node_id)
    rts = d.ie(P.IE_RecoveryTimeStamp)
    check(rts is not None, "%s: no Recovery Time Stamp" % label)
    check(rts.length == 4, "%s: Recovery Time Stamp length %d" % (label, rts.length))
    if args.expect_rts is not None:
        check(rts.timestamp == args.expect_rts, "%s: Recovery Time Stamp %#x, expected %#x"
              % (label, rts.timestamp, args.expect_rts))
    up_rts = rts.timestamp
    upff = d.ie(P.IE_UPFunctionFeatures)
    print("OK %s: cause 1, Node ID %r, Recovery Time Stamp %#x, UP Function Features %s"
          % (label, up_node, up_rts, "absent" if upff is None else bytes(upff)[4:].hex()),
          flush=True)

    # 2. Heartbeat.
    label = "heartbeat"
    req = header(1, 2) / P.PFCPHeartbeatRequest(IE_list=[P.IE_RecoveryTimeStamp(timestamp=CP_RTS)])
    d = exchange(sock, target, req, label, t)
    check_header(d, label, 2, 2)
    rts = d.ie(P.IE_RecoveryTimeStamp)
    check(rts is not None, "%s: no Recovery Time Stamp" % label)
    check(rts.timestamp == up_rts, "%s: Recovery Time Stamp %#x, the association said %#x"
          % (label, rts.timestamp, up_rts))
    check(len(d.ies()) == 1, "%s: %d IEs, expected only the Recovery Time Stamp"
          % (label, len(d.ies())))
    print("OK %s: Recovery Time Stamp %#x, sequence 2" % (label, rts.timestamp), flush=True)

    # 3. Session Establishment, answered by the application.
    label = "session-establishment"
    d = exchange(sock, target, establishment_request(3, CP_SEID), label, t)
    check_header(d, label, 51, 3, seid=CP_SEID)
    check_cause(d, label, CAUSE_ACCEPTED)
    check_node_id(d, label, args.expect_node_id)
    up_fseid = d.ie(P.IE_FSEID)
    check(up_fseid is not None, "%s: no UP F-SEID" % label)
    up_seid = up_fseid.seid
    print("OK %s: cause 1, SEID %#x, UP F-SEID %#x" % (label, CP_SEID, up_seid), flush=True)

    # 4. Version 2 -> Version Not Supported Response (header only, version 1, S=0).
    label = "version-2-modification"
    req = header(52, 4, seid=up_seid, version=2) / P.PFCPSessionModificationRequest(IE_list=[
        P.IE_UpdateFAR(IE_list=[P.IE_FAR_Id(id=1), P.IE_ApplyAction(spare=0, DROP=1)]),
    ])
    d = exchange(sock, target, req, label, t)
    check_header(d, label, 11, 4)
    check(d.pkt.length == 4, "%s: length %d, expected 4 (header only)" % (label, d.pkt.length))
    check(len(d.ies()) == 0, "%s: %d IEs, expected none" % (label, len(d.ies())))
    print("OK %s: Version Not Supported Response, sequence 4" % label, flush=True)

    # 5. A socket that never associated.
    label = "unassociated-establishment"
    other = socket.socket(family, socket.SOCK_DGRAM)
    other.bind(("::1" if family == socket.AF_INET6 else "127.0.0.1", 0))
    d = exchange(other, target, establishment_request(5, CP_SEID_UNASSOCIATED), label, t)
    check_header(d, label, 51, 5, seid=CP_SEID_UNASSOCIATED)
    check_cause(d, label, CAUSE_NO_ASSOCIATION)
    print("OK %s: cause 72, SEID %#x" % (label, CP_SEID_UNASSOCIATED), flush=True)

    # 6. Burst (overload: the UP's OCI/LCI as scapy reads them).
    if args.burst:
        burst(sock, target, args, 0x100)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", required=True, help="HOST:PORT of the UP endpoint")
    ap.add_argument("--timeout", type=float, default=3.0, help="seconds to wait for each response")
    ap.add_argument("--expect-rts", type=lambda s: int(s, 0), default=None,
                    help="the UP's Recovery Time Stamp (NTP seconds)")
    ap.add_argument("--expect-node-id", default=None, help="the UP's Node ID (IP or FQDN)")
    ap.add_argument("--burst", type=int, default=0,
                    help="then send N Session Establishment Requests at once")
    ap.add_argument("--expect-oci", action="store_true",
                    help="a burst response must carry an Overload Control Information")
    ap.add_argument("--expect-lci", action="store_true",
                    help="a burst response must carry a Load Control Information")
    args = ap.parse_args()
    try:
        run(args)
    except Failure as e:
        print("FAIL: %s" % e, file=sys.stderr, flush=True)
        return 1
    print("ALL CHECKS PASSED", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
