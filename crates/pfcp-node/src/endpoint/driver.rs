//! The endpoint's protocol state ([`Driver`]) and the task that drives it.
//!
//! The state sits behind a lock shared by the task and the handles ([`Shared`]), in the
//! style of quinn: a handle that sends a request (or an application that answers one through
//! [`Incoming::respond`]) does the work in its own task, encoding, registering the
//! transaction and sending, and wakes the driver task only when that task has to re-arm its
//! timer earlier or finish a send the socket refused. The task itself reads datagrams and
//! fires timers. A request therefore costs no channel hop and no task switch on the way out,
//! which on loopback was as much CPU as the PFCP work itself (`docs/benchmarks.md`,
//! pfcp-node). The lock is never held across an await; on a multi-thread runtime a handle
//! may wait for it while the task works through a batch of datagrams.

use std::sync::{Mutex, MutexGuard, PoisonError};

use super::*;
use tracing::{debug, warn};

/// A table keyed by our own sequential [`TxId`]s: a fixed fast hash (nothing for a peer to
/// aim at; SipHash cost more than the lookups it guards).
pub(super) type TxMap<V> = HashMap<TxId, V, foldhash::fast::FixedState>;

/// What the driver task and the handles share.
pub(super) struct Shared {
    pub(super) socket: UdpSocket,
    pub(super) state: Mutex<Driver>,
    /// Wakes the task: its timer must be armed earlier, or a send is left for it. A channel
    /// of one (a full one already says it) rather than a `Notify`, whose waiting takes a lock
    /// every time the task goes idle.
    pub(super) wake: mpsc::Sender<()>,
}

impl fmt::Debug for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shared")
            .field("socket", &self.socket)
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// Run `f` on the protocol state from a handle's task at `now`, send what it queued, and
    /// wake the driver task if it must re-arm its timer earlier or finish a blocked send.
    /// [`Error::Closed`] once the task has stopped (or a handler panicked in it).
    pub(super) fn with_state<R>(
        &self,
        f: impl FnOnce(&mut Driver, Instant) -> R,
    ) -> Result<R, Error> {
        let t = now();
        let mut st = self.lock()?;
        let r = f(&mut st, t);
        st.drain_events(t);
        let blocked = st.send_ready(&self.socket);
        let earlier = match (st.next_deadline(), st.armed) {
            (Some(d), Some(armed)) => d < armed,
            (Some(_), None) => true,
            (None, _) => false,
        };
        drop(st);
        if blocked || earlier {
            let _ = self.wake.try_send(());
        }
        Ok(r)
    }

    fn lock(&self) -> Result<MutexGuard<'_, Driver>, Error> {
        match self.state.lock() {
            Ok(st) if !st.closed => Ok(st),
            _ => Err(Error::Closed),
        }
    }
}

pub(super) struct Driver {
    /// Configuration of the per-CP egress throttles for Session Report Requests.
    pub(super) report_egress: Option<pfcp_throttle::EgressConfig>,
    /// Those throttles, per CP address (bounded by the peer table size).
    pub(super) report_throttles: HashMap<SocketAddr, pfcp_throttle::EgressThrottle>,
    /// The egress throttle that admitted each outstanding Session Report Request.
    pub(super) pending_report: TxMap<SocketAddr>,
    pub(super) max_peers: usize,
    pub(super) admission: Option<UpAdmission>,
    pub(super) cp: Option<CpOverloadControl>,
    /// Destination of each outstanding CP request (to feed its OCI/LCI and free its slot).
    pub(super) pending_dest: TxMap<Destination>,
    /// Address of each associated UP function, for redirection.
    pub(super) node_addrs: HashMap<NodeKey, SocketAddr>,
    /// State of the splitmix64 generator for throttling draws (seeded, no global RNG).
    pub(super) draws: u64,
    pub(super) xact: Transactions,
    pub(super) peers: Peers,
    pub(super) guard: IngressGuard,
    pub(super) local: LocalNode,
    pub(super) heartbeat_interval: Option<Duration>,
    pub(super) next_heartbeat: Option<Instant>,
    pub(super) incoming: mpsc::Sender<Incoming>,
    pub(super) events: mpsc::Sender<PeerEvent>,
    pub(super) pending: TxMap<Pending>,
    /// The application's synchronous request handler, if any (called before the channel).
    pub(super) handler: Option<Box<dyn RequestHandler>>,
    /// Datagrams the socket refused (full buffer) and those sent outside the transaction
    /// layer (Version Not Supported Response), sent before anything else.
    pub(super) backlog: VecDeque<Transmit>,
    /// The instant the driver task's timer is armed at, if it is armed: a handle that
    /// creates an earlier deadline wakes the task.
    pub(super) armed: Option<Instant>,
    /// Set when the task stops: the handles answer [`Error::Closed`] from then on.
    pub(super) closed: bool,
    /// A handle to the shared state for the [`Incoming`] requests this state hands out.
    pub(super) shared: std::sync::Weak<Shared>,
}

/// Largest UDP payload read (IPv4 maximum).
const MAX_DATAGRAM: usize = 65_535;
/// Datagrams taken from the socket per wake-up beyond the first.
const BATCH: usize = 31;
/// Datagrams waiting in [`Driver::backlog`] beyond which Version Not Supported Responses are
/// not sent (they are a courtesy; the socket is full).
pub(super) const MAX_BACKLOG: usize = 1024;
/// How long the task's timer may sleep with no deadline: a deadline a handle creates later
/// (T1 after its request) comes after it unless T1 is shorter, and then the handle wakes the
/// task.
const IDLE: Duration = Duration::from_secs(1);

/// The `n` octets received into `buf`, copied out: the 64 KiB buffer is reused, and a request
/// an application holds should pin only its own octets.
fn received(buf: &[u8], n: usize) -> Bytes {
    Bytes::copy_from_slice(buf.get(..n).unwrap_or_default())
}

/// What woke the driver task.
enum Wake {
    Datagram(io::Result<(usize, SocketAddr)>),
    /// Every [`Endpoint`] handle is gone.
    HandlesGone,
    Timer,
    /// A handle asked (see [`Shared::with_state`]), or the socket is writable again.
    Nudge,
}

/// Marks the state closed when the task ends, however it ends (handles gone, runtime shut
/// down, a handler's panic): the requests in flight fail with [`Error::Closed`] instead of
/// waiting forever.
struct Stopped(Arc<Shared>);

impl Drop for Stopped {
    fn drop(&mut self) {
        let mut st = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        st.closed = true;
        st.pending.clear();
    }
}

/// The driver task: datagrams in, timers, and the sends the socket refused to a handle.
pub(super) async fn run(
    shared: Arc<Shared>,
    mut handles: mpsc::Receiver<()>,
    mut nudges: mpsc::Receiver<()>,
) {
    let _stopped = Stopped(shared.clone());
    let mut buf = vec![0u8; MAX_DATAGRAM];
    let mut handles_open = true;
    let mut blocked = false;
    // One timer for the task's life, moved only when it must fire earlier or has fired (a
    // new `sleep_until` per loop turn re-registers with the timer wheel every time).
    let timer = tokio::time::sleep_until(tokio::time::Instant::now() + IDLE);
    tokio::pin!(timer);
    loop {
        let wake = tokio::select! {
            // Fixed order (no random draw per turn): the socket is drained in batches and
            // deadlines that have passed are served below whatever woke the task.
            biased;
            r = shared.socket.recv_from(&mut buf) => Wake::Datagram(r),
            _ = &mut timer => Wake::Timer,
            Some(()) = nudges.recv() => Wake::Nudge,
            _ = shared.socket.writable(), if blocked => Wake::Nudge,
            _ = handles.recv(), if handles_open => Wake::HandlesGone,
        };
        // The clock is read once per wake-up: everything handled in this turn happened
        // "now" (a read costs about 25 ns on KVM, and there were several per datagram).
        let t = now();
        let Ok(mut st) = shared.state.lock() else {
            return;
        };
        match wake {
            Wake::Datagram(Ok((n, from))) => st.on_datagram(from, received(&buf, n), t),
            Wake::Datagram(Err(e)) => warn!(error = %e, "recv_from failed"),
            Wake::HandlesGone => handles_open = false,
            Wake::Timer | Wake::Nudge => {}
        }
        st.drain_events(t);
        // What else is queued in the socket is taken before the answers are sent: one
        // wake-up, one batch. Bounded, so that a flood cannot hold the timers for long. A
        // look at an empty socket costs no system call while tokio knows it is not readable.
        for _ in 0..BATCH {
            let Ok((n, from)) = shared.socket.try_recv_from(&mut buf) else {
                break;
            };
            st.on_datagram(from, received(&buf, n), t);
            st.drain_events(t);
        }
        if st.next_deadline().is_some_and(|d| d <= t) {
            st.on_timeout(t);
            st.drain_events(t);
        }
        blocked = st.send_ready(&shared.socket);
        if !handles_open && st.incoming.is_closed() && st.pending.is_empty() {
            debug!("pfcp endpoint stopping: no handle left");
            return;
        }
        // Moved only earlier, or when it has fired: the earliest deadline moves later with
        // nearly every completed request, and an early wake-up (which finds nothing due and
        // re-arms) is cheaper than a reset per turn. With nothing due, it still fires within
        // IDLE, so a handle's deadline (T1 ahead) rarely needs to wake the task.
        let target = tokio::time::Instant::from_std(st.next_deadline().unwrap_or(t + IDLE));
        if target < timer.deadline() || timer.is_elapsed() {
            timer.as_mut().reset(target);
        }
        st.armed = Some(timer.deadline().into_std());
    }
}

impl Driver {
    /// The earliest deadline of the transaction layer, heartbeats, admission and the CP
    /// pipeline.
    fn next_deadline(&self) -> Option<Instant> {
        [
            self.xact.poll_timeout(),
            self.next_heartbeat,
            self.admission.as_ref().and_then(UpAdmission::poll_timeout),
            self.cp.as_ref().and_then(CpOverloadControl::poll_timeout),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Send what is queued without waiting; `true` if the socket is full and something is
    /// left in the backlog (the task then waits until it is writable).
    fn send_ready(&mut self, socket: &UdpSocket) -> bool {
        loop {
            let Some(tx) = self
                .backlog
                .pop_front()
                .or_else(|| self.xact.poll_transmit())
            else {
                return false;
            };
            match socket.try_send_to(&tx.bytes, tx.peer) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.backlog.push_front(tx);
                    return true;
                }
                Err(e) => warn!(peer = %tx.peer, error = %e, "send_to failed"),
            }
        }
    }

    fn on_timeout(&mut self, t: Instant) {
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

    /// Act on the transaction layer's events. New requests and matched responses do not come
    /// this way from the socket (`on_datagram` takes them with their decoded message).
    pub(super) fn drain_events(&mut self, t: Instant) {
        while let Some(e) = self.xact.poll_event() {
            match e {
                Event::Request {
                    peer,
                    sequence,
                    bytes,
                    ..
                } => {
                    if let Ok(msg) = Message::decode(&bytes) {
                        self.on_request(peer, sequence, &msg, &bytes, t);
                    }
                }
                Event::Response {
                    id, bytes, peer, ..
                } => self.on_response(id, peer, None, bytes, t),
                Event::Timeout {
                    id,
                    peer,
                    transmissions,
                } => self.on_request_timeout(id, peer, transmissions),
                Event::Malformed { peer, error } => self.on_malformed(peer, &error, t),
                other => debug!(event = ?other, "transaction event"),
            }
        }
    }

    pub(super) fn on_peer_event(&mut self, e: PeerEvent) {
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
}
