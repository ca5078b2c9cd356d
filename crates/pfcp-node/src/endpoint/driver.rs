//! The endpoint's driver task: owns the socket and every piece of protocol state, and turns
//! datagrams, commands from handles, application responses and timers into protocol actions.
//! Split from `endpoint.rs` so the public handle API and the event loop each read as one
//! thing.

use super::*;
use tracing::{debug, warn};

pub(super) struct Driver {
    /// Configuration of the per-CP egress throttles for Session Report Requests.
    pub(super) report_egress: Option<pfcp_throttle::EgressConfig>,
    /// Those throttles, per CP address (bounded by the peer table size).
    pub(super) report_throttles: HashMap<SocketAddr, pfcp_throttle::EgressThrottle>,
    /// The egress throttle that admitted each outstanding Session Report Request.
    pub(super) pending_report: HashMap<TxId, SocketAddr>,
    pub(super) max_peers: usize,
    pub(super) admission: Option<UpAdmission>,
    pub(super) cp: Option<CpOverloadControl>,
    /// Destination of each outstanding CP request (to feed its OCI/LCI and free its slot).
    pub(super) pending_dest: HashMap<TxId, Destination>,
    /// Address of each associated UP function, for redirection.
    pub(super) node_addrs: HashMap<NodeKey, SocketAddr>,
    /// State of the splitmix64 generator for throttling draws (seeded, no global RNG).
    pub(super) draws: u64,
    pub(super) socket: UdpSocket,
    pub(super) xact: Transactions,
    pub(super) peers: Peers,
    pub(super) guard: IngressGuard,
    pub(super) local: LocalNode,
    pub(super) heartbeat_interval: Option<Duration>,
    pub(super) next_heartbeat: Option<Instant>,
    pub(super) commands: mpsc::Receiver<Command>,
    pub(super) incoming: mpsc::Sender<Incoming>,
    pub(super) events: mpsc::Sender<PeerEvent>,
    pub(super) responses_tx: mpsc::Sender<Outgoing>,
    pub(super) responses: mpsc::Receiver<Outgoing>,
    pub(super) pending: HashMap<TxId, Pending>,
    /// Datagrams sent outside the transaction layer (Version Not Supported Response).
    pub(super) direct: Vec<(SocketAddr, Bytes)>,
}

/// Largest UDP payload read (IPv4 maximum).
const MAX_DATAGRAM: usize = 65_535;
/// Datagrams taken from the socket per wake-up beyond the first.
const RECV_BATCH: usize = 31;

impl Driver {
    pub(super) async fn run(mut self) {
        let mut buf = vec![0u8; MAX_DATAGRAM];
        let mut commands_open = true;
        // One timer for the task's life, moved only when the next deadline changes (a new
        // `sleep_until` per loop turn re-registers with the timer wheel every time).
        let idle = tokio::time::Instant::now() + Duration::from_secs(86_400);
        let timer = tokio::time::sleep_until(idle);
        tokio::pin!(timer);
        loop {
            let deadline = [
                self.xact.poll_timeout(),
                self.next_heartbeat,
                self.admission.as_ref().and_then(UpAdmission::poll_timeout),
                self.cp.as_ref().and_then(CpOverloadControl::poll_timeout),
            ]
            .into_iter()
            .flatten()
            .min();
            let target = deadline.map(tokio::time::Instant::from_std);
            if let Some(t) = target {
                if timer.deadline() != t {
                    timer.as_mut().reset(t);
                }
            }
            tokio::select! {
                r = self.socket.recv_from(&mut buf) => match r {
                    Ok((n, from)) => {
                        let payload = Bytes::copy_from_slice(buf.get(..n).unwrap_or_default());
                        self.on_datagram(from, payload);
                        // Take what else is already queued in the socket before the events
                        // are drained and the answers flushed: one wake-up, one batch.
                        for _ in 0..RECV_BATCH {
                            match self.socket.try_recv_from(&mut buf) {
                                Ok((n, from)) => {
                                    let payload =
                                        Bytes::copy_from_slice(buf.get(..n).unwrap_or_default());
                                    self.on_datagram(from, payload);
                                    self.drain_events();
                                }
                                Err(_) => break,
                            }
                        }
                    }
                    Err(e) => warn!(error = %e, "recv_from failed"),
                },
                c = self.commands.recv(), if commands_open => match c {
                    Some(c) => self.on_command(c),
                    None => commands_open = false,
                },
                Some(o) = self.responses.recv() => self.on_outgoing(o),
                _ = &mut timer, if target.is_some() => self.on_timeout(),
            }
            self.drain_events();
            self.flush().await;
            if !commands_open && self.incoming.is_closed() && self.pending.is_empty() {
                debug!("pfcp endpoint stopping: no handle left");
                return;
            }
        }
    }

    fn on_datagram(&mut self, from: SocketAddr, payload: Bytes) {
        let t = now();
        // Responses are not rate-guarded: they only count if they match a request this node
        // sent (the transaction layer discards the rest cheaply), and dropping one would only
        // stall that request for T1. Requests and anything unreadable pass the guard.
        let is_response = payload
            .get(1)
            .is_some_and(|&ty| !MessageType(ty).is_request() && MessageType(ty).is_known());
        if !is_response && !self.guard.admit(from, t) {
            return;
        }
        metrics::counter!("pfcp_datagrams_received_total").increment(1);
        self.xact.handle_datagram(from, payload, t);
    }

    fn on_command(&mut self, c: Command) {
        let t = now();
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
                    .and_then(|b| self.xact.send_request(peer, b, t).map_err(Error::from));
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
        // A report without MP gets the classifier's default for requests (8).
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

    fn report_ended(&mut self, peer: &SocketAddr) {
        if let Some(th) = self.report_throttles.get_mut(peer) {
            th.on_transaction_end();
        }
    }

    fn send_heartbeat(
        &mut self,
        peer: SocketAddr,
        reply: Option<oneshot::Sender<Result<Bytes, Error>>>,
        t: Instant,
    ) {
        let seq = self.xact.next_sequence(peer);
        let sent = peer::heartbeat_request(&self.local, seq)
            .map_err(Error::from)
            .and_then(|b| self.xact.send_request(peer, b, t).map_err(Error::from));
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

    fn on_outgoing(&mut self, o: Outgoing) {
        let Outgoing::Response {
            peer,
            sequence,
            bytes,
        } = o;
        let bytes = self.piggyback(peer, bytes);
        if let Some(th) = self.report_throttles.get_mut(&peer) {
            th.on_send(pfcp_throttle::MessageKind::Answer, now());
        }
        if let Err(e) = self.xact.send_response(peer, sequence, bytes, now()) {
            warn!(%peer, error = %e, "response not sent");
        }
    }

    /// Append this UP's OCI/LCI to an application's response when the inclusion policy says
    /// so (messages 51, 53, 55; clause 6.2.3.3, 6.2.4.3).
    fn piggyback(&mut self, peer: SocketAddr, bytes: Bytes) -> Bytes {
        let Some(adm) = self.admission.as_mut() else {
            return bytes;
        };
        let Ok(msg) = Message::decode(&bytes) else {
            return bytes;
        };
        let t = msg.message_type();
        if !t.may_carry_oci()
            || msg
                .find(pfcp_wire::IeType::OVERLOAD_CONTROL_INFORMATION)
                .is_some()
        {
            return bytes;
        }
        let cause = msg.cause().ok().flatten();
        let key = self
            .peers
            .get(&peer)
            .and_then(|p| p.node.clone())
            .unwrap_or(NodeKey::Ip(peer.ip()));
        let oci = adm.oci_for(&key, t, cause, now());
        let lci = adm.lci_for(&key, t);
        if oci.is_none() && lci.is_none() {
            return bytes;
        }
        append_ies(&bytes, lci, oci).unwrap_or(bytes)
    }

    fn on_timeout(&mut self) {
        let t = now();
        self.xact.handle_timeout(t);
        if let Some(cp) = self.cp.as_mut() {
            cp.handle_timeout(t);
        }
        if let Some(adm) = self.admission.as_mut() {
            adm.handle_timeout(t);
        }
        self.serve_ready(t);
        if let (Some(at), Some(interval)) = (self.next_heartbeat, self.heartbeat_interval) {
            if t >= at {
                let peers: Vec<SocketAddr> = self.peers.associated().map(|(a, _)| *a).collect();
                for p in peers {
                    self.send_heartbeat(p, None, t);
                }
                self.next_heartbeat = Some(t + interval);
            }
        }
    }

    fn drain_events(&mut self) {
        while let Some(e) = self.xact.poll_event() {
            match e {
                Event::Request {
                    peer,
                    sequence,
                    message_type,
                    bytes,
                } => self.on_request(peer, sequence, message_type, bytes),
                Event::Response {
                    id, bytes, peer, ..
                } => self.on_response(id, peer, bytes),
                Event::Timeout {
                    id,
                    peer,
                    transmissions,
                } => self.on_request_timeout(id, peer, transmissions),
                Event::Malformed { peer, error } => self.on_malformed(peer, &error),
                other => debug!(event = ?other, "transaction event"),
            }
        }
    }

    fn on_request(
        &mut self,
        peer: SocketAddr,
        sequence: SequenceNumber,
        message_type: MessageType,
        bytes: Bytes,
    ) {
        let t = now();
        let Ok(msg) = Message::decode(&bytes) else {
            return;
        };
        if let Some(answer) = self.peers.handle_request(&self.local, peer, &msg, t) {
            match answer {
                Ok(a) => {
                    if let Some(r) = a.response {
                        self.respond(peer, sequence, r);
                    }
                    for e in a.events {
                        self.on_peer_event(e);
                    }
                }
                Err(e) => warn!(%peer, error = %e, "node response not built"),
            }
            return;
        }
        // Unknown message types are discarded silently (7.6.1).
        if !message_type.is_known() {
            return;
        }
        let cp_seid = if message_type == MessageType::SESSION_ESTABLISHMENT_REQUEST {
            msg.f_seid().ok().flatten().map(|f| f.seid)
        } else {
            msg.header().seid
        };
        if let Err(e) = msg.validate() {
            if let Ok(Some(r)) = peer::error_response(&self.local, &e, cp_seid) {
                self.respond(peer, sequence, r);
            }
            return;
        }
        let rejection = |cause| {
            message_type.response_type().map(|rt| {
                peer::session_or_node_rejection(
                    &self.local,
                    rt,
                    sequence,
                    cp_seid,
                    msg.header().priority,
                    cause,
                    None,
                )
            })
        };
        if message_type.is_session() == Some(true) && !self.peers.is_associated(&peer) {
            // Clause 6.2.6.1: session messages need an established association.
            metrics::counter!("pfcp_requests_rejected_total", "cause" => "72").increment(1);
            if let Some(Ok(r)) = rejection(Cause::NO_ESTABLISHED_PFCP_ASSOCIATION) {
                self.respond(peer, sequence, r);
            }
            return;
        }
        // A Session Report Request from a UP carries its OCI/LCI like a response does.
        if let Some(cp) = self.cp.as_mut() {
            if message_type == MessageType::SESSION_REPORT_REQUEST {
                let node = self
                    .peers
                    .get(&peer)
                    .and_then(|p| p.node.clone())
                    .unwrap_or(NodeKey::Ip(peer.ip()));
                let _ = cp.handle_response(&Destination::entity(node, peer.ip()), &msg, t);
            }
        }
        let rejection = rejection(Cause::PFCP_ENTITY_IN_CONGESTION);
        if let Some(adm) = self.admission.as_mut() {
            let node = self.peers.get(&peer).and_then(|p| p.node.clone());
            if let Ok(req) = adm.request_from(peer, bytes.clone(), node) {
                match adm.offer(req, t) {
                    Admit::Queued { evicted } => {
                        if let Some(ev) = evicted {
                            self.reject_admission(ev);
                        }
                    }
                    Admit::Rejected { request, .. } => self.reject_admission(request),
                    Admit::Bypass(req) => self.deliver(req.peer, req.sequence, req.bytes, None),
                }
                self.serve_ready(t);
                return;
            }
        }
        self.deliver(peer, sequence, bytes, rejection.and_then(Result::ok));
    }

    /// Hand a request to the application; when its channel is full, refuse with Cause 74
    /// rather than queue without bound.
    fn deliver(
        &mut self,
        peer: SocketAddr,
        sequence: SequenceNumber,
        bytes: Bytes,
        rejection: Option<Bytes>,
    ) {
        let incoming = Incoming {
            peer,
            sequence,
            bytes: bytes.clone(),
            responses: self.responses_tx.clone(),
        };
        if self.incoming.try_send(incoming).is_err() {
            metrics::counter!("pfcp_requests_rejected_total", "cause" => "74").increment(1);
            if let Some(r) = rejection {
                self.respond(peer, sequence, r);
            } else if let Some(adm) = self.admission.as_ref() {
                if let Ok(req) = adm.request_from(peer, bytes, None) {
                    self.reject_admission(req);
                }
            }
        }
    }

    /// Dequeue what the UP's service model allows now, and reject what waited too long.
    fn serve_ready(&mut self, t: Instant) {
        loop {
            let Some(adm) = self.admission.as_mut() else {
                return;
            };
            if let Some(expired) = adm.poll_expired() {
                self.reject_admission(expired);
                continue;
            }
            match adm.poll_ready(t) {
                Some(req) => self.deliver(req.peer, req.sequence, req.bytes, None),
                None => return,
            }
        }
    }

    /// Answer a request refused by the UP's admission with Cause 74 and the OCI/LCI.
    fn reject_admission(&mut self, req: QueuedRequest) {
        let Some(adm) = self.admission.as_mut() else {
            return;
        };
        let t = now();
        let rt = req.message_type.response_type();
        let key = req.peer_key();
        let (oci, lci) = match rt {
            Some(rt) => (
                adm.oci_for(&key, rt, Some(Cause::PFCP_ENTITY_IN_CONGESTION), t),
                adm.lci_for(&key, rt),
            ),
            None => (None, None),
        };
        match adm.build_rejection(&req, oci, lci) {
            Ok(r) => self.respond(req.peer, req.sequence, r),
            Err(e) => warn!(peer = %req.peer, error = %e, "rejection not built"),
        }
    }

    fn respond(&mut self, peer: SocketAddr, sequence: SequenceNumber, bytes: Bytes) {
        if let Err(e) = self.xact.send_response(peer, sequence, bytes, now()) {
            warn!(%peer, error = %e, "response not sent");
        }
    }

    fn on_response(&mut self, id: TxId, peer: SocketAddr, bytes: Bytes) {
        let t = now();
        if let Some(p) = self.pending_report.remove(&id) {
            self.report_ended(&p);
        }
        if let (Some(cp), Some(dest)) = (self.cp.as_mut(), self.pending_dest.remove(&id)) {
            if let Ok(msg) = Message::decode(&bytes) {
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
                if let Ok(msg) = Message::decode(&bytes) {
                    for e in self.peers.handle_setup_response(p, &msg, t) {
                        self.on_peer_event(e);
                    }
                }
                let _ = reply.send(Ok(bytes));
            }
            Some(Pending::Heartbeat(p, reply)) => {
                if let Ok(msg) = Message::decode(&bytes) {
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

    fn on_request_timeout(&mut self, id: TxId, peer: SocketAddr, transmissions: u32) {
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

    fn on_malformed(&mut self, peer: SocketAddr, error: &pfcp_wire::DecodeError) {
        metrics::counter!("pfcp_malformed_total").increment(1);
        if let DecodeErrorKind::UnsupportedVersion { .. } = error.kind {
            // Clause 7.6.2: answer with Version Not Supported Response (header only).
            let mut out = BytesMut::with_capacity(8);
            let seq = error.header.map(|h| h.sequence).unwrap_or_default();
            let h = Header::new(MessageType::VERSION_NOT_SUPPORTED_RESPONSE).with_sequence(seq);
            if let Ok(w) = MessageWriter::begin(&mut out, &h) {
                if w.finish().is_ok() {
                    self.transmit_direct(peer, out.freeze());
                }
            }
            return;
        }
        let cp_seid = error.header.and_then(|h| h.seid);
        if let (Ok(Some(r)), Some(h)) = (
            peer::error_response(&self.local, error, cp_seid),
            error.header,
        ) {
            self.respond(peer, h.sequence, r);
        }
    }

    fn transmit_direct(&mut self, peer: SocketAddr, bytes: Bytes) {
        self.direct.push((peer, bytes));
    }

    fn on_peer_event(&mut self, e: PeerEvent) {
        match &e {
            PeerEvent::Associated { peer, node } => {
                self.node_addrs.insert(node.clone(), *peer);
                let features = self.peers.get(peer).and_then(|p| p.cp_features);
                if let (Some(adm), Some(f)) = (self.admission.as_mut(), features) {
                    adm.set_peer_features(node.clone(), &f);
                }
            }
            PeerEvent::Restarted { peer, node }
            | PeerEvent::Failed { peer, node }
            | PeerEvent::Released { peer, node } => {
                if !matches!(e, PeerEvent::Released { .. }) {
                    // A restarted or failed peer: its outstanding transactions fail (6.2.2).
                    self.xact.fail_peer(*peer);
                }
                // What was learned from it is reset (6.2.4.3.2: a restart resets sequencing),
                // unless another address of the same node is still associated: a release or
                // failure of one of a node's addresses must not drop the node's state.
                let node = node.clone().unwrap_or(NodeKey::Ip(peer.ip()));
                let restarted = matches!(e, PeerEvent::Restarted { .. });
                let node_alive = self
                    .peers
                    .associated()
                    .any(|(a, p)| a != peer && p.node.as_ref() == Some(&node));
                if node_alive && !restarted {
                    info!(event = ?e, "peer event (node still associated elsewhere)");
                    let _ = self.events.try_send(e);
                    return;
                }
                if let Some(cp) = self.cp.as_mut() {
                    cp.reset_peer(&node);
                }
                if let Some(adm) = self.admission.as_mut() {
                    adm.remove_peer(&node);
                }
            }
        }
        info!(event = ?e, "peer event");
        let _ = self.events.try_send(e);
    }

    async fn flush(&mut self) {
        while let Some(tx) = self.xact.poll_transmit() {
            if let Err(e) = self.socket.send_to(&tx.bytes, tx.peer).await {
                warn!(peer = %tx.peer, error = %e, "send_to failed");
            }
        }
        for (peer, bytes) in std::mem::take(&mut self.direct) {
            if let Err(e) = self.socket.send_to(&bytes, peer).await {
                warn!(%peer, error = %e, "send_to failed");
            }
        }
    }
}

fn splitmix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `message` with the LCI and OCI appended and the Message Length patched (IE order is free,
/// clause 8.1.2).
fn append_ies(
    message: &[u8],
    lci: Option<pfcp_wire::ie::LoadControlInformation>,
    oci: Option<pfcp_wire::ie::OverloadControlInformation>,
) -> Option<Bytes> {
    use pfcp_wire::Encode;
    let extra = lci.encoded_len() + oci.encoded_len();
    let mut out = BytesMut::with_capacity(message.len() + extra);
    out.extend_from_slice(message);
    lci.encode(&mut out).ok()?;
    oci.encode(&mut out).ok()?;
    let len = u16::try_from(out.len().checked_sub(4)?).ok()?;
    out.get_mut(2..4)?.copy_from_slice(&len.to_be_bytes());
    Some(out.freeze())
}

/// A message from a header (with its sequence number) and pre-encoded IEs.
fn encode_with(header: &Header, ies: &[u8]) -> Result<Bytes, pfcp_wire::EncodeError> {
    let mut out = BytesMut::with_capacity(header.encoded_len() + ies.len());
    let mut w = MessageWriter::begin(&mut out, header)?;
    w.raw_ies(ies)?;
    w.finish()?;
    Ok(out.freeze())
}
