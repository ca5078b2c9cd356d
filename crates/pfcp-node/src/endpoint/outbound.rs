//! The driver's outbound half: the requests this node sends (from the handles' commands and
//! the heartbeat timer, with the CP's overload control and the UP's report egress throttle)
//! and what becomes of them (response, timeout). Split from `driver.rs`, which keeps the
//! shared state, the task and the timers.

use super::*;
use tracing::{debug, warn};

impl Driver {
    pub(super) fn on_command(&mut self, c: Command, t: Instant) {
        match c {
            Command::Request {
                peer,
                mut header,
                ies,
                profile,
                reply,
            } => {
                let mut peer = peer;
                let mut dest = None;
                if let Some(cp) = self.cp.as_mut() {
                    let node = self
                        .peers
                        .get(&peer)
                        .and_then(|p| p.node.clone())
                        .unwrap_or(NodeKey::Ip(peer.ip()));
                    let d = Destination {
                        node,
                        entity: profile.entity,
                    };
                    let t_msg = header.message_type;
                    let ctx = profile.context(Procedure::of(t_msg));
                    self.draws = self.draws.wrapping_add(0x9E37_79B9_7F4A_7C15);
                    let draw = splitmix(self.draws);
                    let decision = if profile.redirectable {
                        cp.decide_redirectable(&d, t_msg, &ctx, t, draw)
                    } else {
                        cp.decide(&d, t_msg, &ctx, t, draw)
                    };
                    match decision {
                        CpDecision::Send { priority, dest: to } => {
                            if header.seid.is_some() && header.priority.is_none() {
                                header = header.with_priority(priority);
                            }
                            dest = Some(to);
                        }
                        CpDecision::Redirect { to, priority } => {
                            match self.node_addrs.get(&to.node) {
                                Some(addr) => {
                                    peer = *addr;
                                    if header.seid.is_some() && header.priority.is_none() {
                                        header = header.with_priority(priority);
                                    }
                                    info!(%peer, dest = %to, "request redirected");
                                    dest = Some(to);
                                }
                                None => {
                                    cp.transaction_ended(&to);
                                    let _ = reply.send(Err(Error::Throttled {
                                        cause: Cause::PFCP_ENTITY_IN_CONGESTION,
                                    }));
                                    return;
                                }
                            }
                        }
                        CpDecision::Reject { cause, reason } => {
                            debug!(%peer, ?reason, "request throttled");
                            let _ = reply.send(Err(Error::Throttled { cause }));
                            return;
                        }
                    }
                }
                let report = header.message_type == MessageType::SESSION_REPORT_REQUEST
                    && self.report_egress.is_some();
                if report && !self.admit_report(peer, &header, t) {
                    let _ = reply.send(Err(Error::Throttled {
                        cause: Cause::PFCP_ENTITY_IN_CONGESTION,
                    }));
                    return;
                }
                let seq = self.xact.next_sequence(peer);
                let sent = encode_with(&header.with_sequence(seq), &ies)
                    .map_err(Error::from)
                    .and_then(|b| self.xact.send_request(peer, b, t).map_err(Error::from));
                match sent {
                    Ok(id) => {
                        self.pending.insert(id, Pending::App(reply));
                        if let Some(d) = dest {
                            self.pending_dest.insert(id, d);
                        }
                        if report {
                            self.pending_report.insert(id, peer);
                        }
                    }
                    Err(e) => {
                        if let (Some(cp), Some(d)) = (self.cp.as_mut(), dest) {
                            cp.transaction_ended(&d);
                        }
                        if report {
                            self.report_ended(&peer);
                        }
                        let _ = reply.send(Err(e));
                    }
                }
            }
            Command::Associate { peer, reply } => {
                let seq = self.xact.next_sequence(peer);
                let sent = peer::association_setup_request(&self.local, seq)
                    .map_err(Error::from)
                    .and_then(|b| {
                        self.xact
                            .send_request_parts(
                                peer,
                                b,
                                MessageType::ASSOCIATION_SETUP_REQUEST,
                                seq,
                                t,
                            )
                            .map_err(Error::from)
                    });
                match sent {
                    Ok(id) => {
                        self.pending.insert(id, Pending::Associate(peer, reply));
                    }
                    Err(e) => {
                        let _ = reply.send(Err(e));
                    }
                }
            }
            Command::Heartbeat { peer, reply } => self.send_heartbeat(peer, Some(reply), t),
            Command::SetRoutes(routes) => {
                if let Some(cp) = self.cp.as_mut() {
                    cp.set_routes(routes);
                }
            }
        }
    }

    /// Pass a Session Report Request through the egress throttle of the connection to `peer`
    /// (created on first use). Its answers to that CP count in the same measured rate.
    fn admit_report(&mut self, peer: SocketAddr, header: &Header, t: Instant) -> bool {
        let Some(cfg) = self.report_egress else {
            return true;
        };
        if !self.report_throttles.contains_key(&peer) {
            if self.report_throttles.len() >= self.max_peers {
                return true;
            }
            match pfcp_throttle::EgressThrottle::new(cfg, t) {
                Ok(th) => {
                    self.report_throttles.insert(peer, th);
                }
                Err(e) => {
                    warn!(error = %e, "invalid report egress configuration");
                    return true;
                }
            }
        }
        // A report without MP gets the classifier's default for requests (15, the lowest).
        let priority = header
            .priority
            .unwrap_or_else(|| pfcp_throttle::Classifier::default().received_request(None));
        match self.report_throttles.get_mut(&peer) {
            Some(th) => {
                let d = th.decide(pfcp_throttle::MessageKind::Request, priority, t);
                let ok = matches!(d, pfcp_throttle::EgressDecision::Send);
                if !ok {
                    metrics::counter!("pfcp_requests_throttled_total", "reason" => "report_egress")
                        .increment(1);
                    debug!(%peer, ?d, "session report throttled");
                }
                ok
            }
            None => true,
        }
    }

    pub(super) fn report_ended(&mut self, peer: &SocketAddr) {
        if let Some(th) = self.report_throttles.get_mut(peer) {
            th.on_transaction_end();
        }
    }

    pub(super) fn send_heartbeat(
        &mut self,
        peer: SocketAddr,
        reply: Option<oneshot::Sender<Result<Bytes, Error>>>,
        t: Instant,
    ) {
        let seq = self.xact.next_sequence(peer);
        // Built here with `seq`: the transaction layer need not decode it for them.
        let sent = peer::heartbeat_request(&self.local, seq)
            .map_err(Error::from)
            .and_then(|b| {
                self.xact
                    .send_request_parts(peer, b, MessageType::HEARTBEAT_REQUEST, seq, t)
                    .map_err(Error::from)
            });
        match sent {
            Ok(id) => {
                self.pending.insert(id, Pending::Heartbeat(peer, reply));
            }
            Err(e) => {
                if let Some(r) = reply {
                    let _ = r.send(Err(e));
                }
            }
        }
    }

    /// The response `bytes` to request `id`; `msg` is its decoded form when the caller has it
    /// (from the intake), so that it is not decoded again.
    pub(super) fn on_response(
        &mut self,
        id: TxId,
        peer: SocketAddr,
        msg: Option<&Message<'_>>,
        bytes: Bytes,
        t: Instant,
    ) {
        if let Some(p) = self.pending_report.remove(&id) {
            self.report_ended(&p);
        }
        if let (Some(cp), Some(dest)) = (self.cp.as_mut(), self.pending_dest.remove(&id)) {
            if let Ok(msg) = decoded(msg, &bytes) {
                // The UP F-SEID of an accepted establishment names the entity for later OCIs.
                let _ = cp.handle_response(&dest, &msg, t);
            }
            cp.transaction_ended(&dest);
        }
        match self.pending.remove(&id) {
            Some(Pending::App(reply)) => {
                let _ = reply.send(Ok(bytes));
            }
            Some(Pending::Associate(p, reply)) => {
                if let Ok(msg) = decoded(msg, &bytes) {
                    for e in self.peers.handle_setup_response(p, &msg, t) {
                        self.on_peer_event(e);
                    }
                }
                let _ = reply.send(Ok(bytes));
            }
            Some(Pending::Heartbeat(p, reply)) => {
                if let Ok(msg) = decoded(msg, &bytes) {
                    if let Some(e) = self.peers.handle_heartbeat_response(p, &msg, t) {
                        self.on_peer_event(e);
                    }
                }
                if let Some(r) = reply {
                    let _ = r.send(Ok(bytes));
                }
            }
            None => debug!(%peer, "response for an abandoned request"),
        }
    }

    pub(super) fn on_request_timeout(&mut self, id: TxId, peer: SocketAddr, transmissions: u32) {
        if let Some(p) = self.pending_report.remove(&id) {
            self.report_ended(&p);
        }
        if let (Some(cp), Some(dest)) = (self.cp.as_mut(), self.pending_dest.remove(&id)) {
            cp.transaction_ended(&dest);
        }
        match self.pending.remove(&id) {
            Some(Pending::App(reply)) | Some(Pending::Associate(_, reply)) => {
                let _ = reply.send(Err(Error::Timeout { transmissions }));
            }
            Some(Pending::Heartbeat(p, reply)) => {
                // Path failure: the peer stopped answering (6.2.2).
                if let Some(e) = self.peers.fail(p) {
                    self.on_peer_event(e);
                }
                if let Some(r) = reply {
                    let _ = r.send(Err(Error::Timeout { transmissions }));
                }
            }
            None => debug!(%peer, "timeout for an abandoned request"),
        }
    }
}

/// `msg` if the caller had it decoded, else `bytes` decoded.
fn decoded<'a>(
    msg: Option<&Message<'a>>,
    bytes: &'a [u8],
) -> Result<Message<'a>, pfcp_wire::DecodeError> {
    match msg {
        Some(m) => Ok(*m),
        None => Message::decode(bytes),
    }
}

fn splitmix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A message from a header (with its sequence number) and pre-encoded IEs.
fn encode_with(header: &Header, ies: &[u8]) -> Result<Bytes, pfcp_wire::EncodeError> {
    let mut out = BytesMut::with_capacity(header.encoded_len() + ies.len());
    let mut w = MessageWriter::begin(&mut out, header)?;
    w.raw_ies(ies)?;
    w.finish()?;
    Ok(out.freeze())
}
