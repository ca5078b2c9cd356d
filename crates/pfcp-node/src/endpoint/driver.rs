//! The shell around the node ([`Shell`]) and the task that drives it.
//!
//! The node sits behind a lock shared by the task and the handles ([`Shared`]), in the style
//! of quinn: a handle that sends a request (or an application that answers one through
//! [`Incoming::respond`]) calls the node in its own task and sends what it queued, and wakes
//! the driver task only when that task has to re-arm its timer earlier or finish a send the
//! socket refused. The task itself reads datagrams and fires timers. A request therefore costs
//! no channel hop and no task switch on the way out (`docs/benchmarks.md`, pfcp-node). The
//! lock is never held across an await.
//!
//! Everything protocol is the node's: this file only moves datagrams between the socket and
//! [`Node::handle_datagram`] / [`Node::poll_transmit`], calls [`Node::handle_timeout`] at
//! [`Node::poll_timeout`], and hands what [`Node::poll_event`] reports to the handler, the
//! channels and the waiting handles.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

use bytes::Bytes;
use pfcp_wire::Message;
use tokio::net::UdpSocket;
use tokio::sync::{mpsc, oneshot};
use tracing::{debug, warn};

use super::socket::DropCounter;
use super::{now, Capture, Error, Incoming, RequestHandler};
use crate::node::{IncomingRequest, Node, RequestId, Response};
use crate::peer::PeerEvent;
use crate::xact::Transmit;

/// A table keyed by the node's sequential [`RequestId`]s.
type Replies =
    HashMap<RequestId, oneshot::Sender<Result<Response, Error>>, foldhash::fast::FixedState>;

/// What the driver task and the handles share.
pub(super) struct Shared {
    pub(super) socket: UdpSocket,
    pub(super) state: Mutex<Shell>,
    /// Wakes the task: its timer must be armed earlier, or a send is left for it. A channel
    /// of one (a full one already says it) rather than a `Notify`, whose waiting takes a lock
    /// every time the task goes idle.
    pub(super) wake: mpsc::Sender<()>,
    pub(super) drops: DropCounter,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("socket", &self.socket)
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// Run `f` on the shell from a handle's task at `now`, send what the node queued, hand
    /// out its events, and wake the driver task if it must re-arm its timer earlier or finish
    /// a blocked send. [`Error::Closed`] once the task has stopped (or a handler panicked).
    pub(super) fn with_shell<R>(
        &self,
        f: impl FnOnce(&mut Shell, Instant) -> R,
    ) -> Result<R, Error> {
        let t = now();
        let mut st = self.lock()?;
        let r = f(&mut st, t);
        let blocked = st.pump(&self.socket, t);
        let earlier = match (st.node.poll_timeout(), st.armed) {
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

    /// [`Shared::with_shell`] on the node alone.
    pub(super) fn with_node<R>(&self, f: impl FnOnce(&mut Node, Instant) -> R) -> Result<R, Error> {
        self.with_shell(|s, t| f(&mut s.node, t))
    }

    fn lock(&self) -> Result<MutexGuard<'_, Shell>, Error> {
        match self.state.lock() {
            Ok(st) if !st.closed => Ok(st),
            _ => Err(Error::Closed),
        }
    }
}

/// The node and what the endpoint keeps around it.
pub(super) struct Shell {
    pub(super) node: Node,
    /// The handles waiting for the outcome of their requests.
    pub(super) replies: Replies,
    /// The application's synchronous request handler, if any (called before the channel).
    handler: Option<Box<dyn RequestHandler>>,
    incoming: mpsc::Sender<Incoming>,
    pub(super) events: mpsc::Sender<PeerEvent>,
    /// Datagrams the socket refused (full buffer), sent before anything else.
    backlog: VecDeque<Transmit>,
    /// The instant the driver task's timer is armed at, if it is armed: a handle that
    /// creates an earlier deadline wakes the task.
    armed: Option<Instant>,
    /// Set when the task stops: the handles answer [`Error::Closed`] from then on.
    closed: bool,
    /// A handle to the shared state for the [`Incoming`] requests this shell hands out.
    shared: Weak<Shared>,
    /// The capture callback and the socket's own address, if capturing.
    capture: Option<(Capture, SocketAddr)>,
    /// The node's counters through the `metrics` facade.
    #[cfg(feature = "metrics")]
    exporter: crate::export::Exporter,
}

impl Shell {
    pub(super) fn new(
        node: Node,
        handler: Option<Box<dyn RequestHandler>>,
        incoming: mpsc::Sender<Incoming>,
        events: mpsc::Sender<PeerEvent>,
        shared: Weak<Shared>,
        capture: Option<(Capture, SocketAddr)>,
    ) -> Self {
        Shell {
            node,
            replies: Replies::default(),
            handler,
            incoming,
            events,
            backlog: VecDeque::new(),
            armed: None,
            closed: false,
            shared,
            capture,
            #[cfg(feature = "metrics")]
            exporter: crate::export::Exporter::new(),
        }
    }

    /// Publish the node's counters (feature `metrics`).
    fn export(&mut self, _now: Instant) {
        #[cfg(feature = "metrics")]
        self.exporter.export(&self.node, _now);
    }

    /// Hand a received datagram to the node (and the capture first).
    fn receive(&mut self, from: SocketAddr, bytes: Bytes, now: Instant) {
        if let Some((c, local)) = &self.capture {
            c.record(from, *local, &bytes);
        }
        self.node.handle_datagram(from, bytes, now);
    }

    /// Drain the node in its documented order until it is quiet: transmits, then events
    /// (whose answers queue more transmits). `true` if the socket is full and something is
    /// left in the backlog (the task then waits until it is writable).
    pub(super) fn pump(&mut self, socket: &UdpSocket, now: Instant) -> bool {
        loop {
            if self.send_ready(socket) {
                // Events are still handed out; their answers wait in the backlog.
                while let Some(e) = self.node.poll_event() {
                    self.dispatch(e, now);
                }
                return true;
            }
            let Some(e) = self.node.poll_event() else {
                return false;
            };
            self.dispatch(e, now);
            while let Some(e) = self.node.poll_event() {
                self.dispatch(e, now);
            }
        }
    }

    /// Send the backlog, then what the node queued, without waiting; `true` if the socket is
    /// full (the rest waits in the backlog).
    fn send_ready(&mut self, socket: &UdpSocket) -> bool {
        loop {
            let Some(tx) = self
                .backlog
                .pop_front()
                .or_else(|| self.node.poll_transmit())
            else {
                return false;
            };
            match socket.try_send_to(&tx.bytes, tx.peer) {
                Ok(_) => {
                    if let Some((c, local)) = &self.capture {
                        c.record(*local, tx.peer, &tx.bytes);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.backlog.push_front(tx);
                    return true;
                }
                Err(e) => warn!(peer = %tx.peer, error = %e, "send_to failed"),
            }
        }
    }

    /// Hand a delivered request to the handler, else to the channel; when the channel is
    /// full, refuse it with Cause 74 rather than queue without bound.
    pub(super) fn deliver(&mut self, request: IncomingRequest, now: Instant) {
        if let Some(h) = self.handler.as_mut() {
            if let Ok(msg) = Message::decode(&request.bytes) {
                let view = super::RequestView {
                    request: &request,
                    message: &msg,
                    peers: self.node.peers(),
                };
                let reference = request.reference;
                match h.handle(&view) {
                    super::HandlerReply::Respond(r) => {
                        if let Err(e) = self.node.respond(&reference, r, now) {
                            warn!(peer = %reference.peer, error = %e, "response not sent");
                        }
                        return;
                    }
                    super::HandlerReply::Reject(cause) => {
                        if let Err(e) = self.node.reject(&reference, cause, now) {
                            warn!(peer = %reference.peer, error = %e, "rejection not sent");
                        }
                        return;
                    }
                    super::HandlerReply::Defer => {}
                }
            }
        }
        let reference = request.reference;
        let incoming = Incoming {
            peer: reference.peer,
            sequence: reference.sequence,
            bytes: request.bytes.clone(),
            request,
            shared: self.shared.clone(),
        };
        if self.incoming.try_send(incoming).is_err() {
            #[cfg(feature = "metrics")]
            metrics::counter!("pfcp_requests_rejected_total", "cause" => "74").increment(1);
            if let Err(e) =
                self.node
                    .reject(&reference, pfcp_wire::Cause::PFCP_ENTITY_IN_CONGESTION, now)
            {
                warn!(peer = %reference.peer, error = %e, "rejection not sent");
            }
        }
    }
}

/// Largest UDP payload read (IPv4 maximum).
const MAX_DATAGRAM: usize = 65_535;
/// Datagrams taken from the socket per wake-up beyond the first.
const BATCH: usize = 63;
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
    Datagram(io::Result<(usize, std::net::SocketAddr)>),
    /// Every [`Endpoint`](super::Endpoint) handle is gone.
    HandlesGone,
    Timer,
    /// A handle asked (see [`Shared::with_shell`]), or the socket is writable again.
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
        st.replies.clear();
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
        // The clock is read once per wake-up: everything handled in this turn happened "now".
        let t = now();
        let Ok(mut st) = shared.state.lock() else {
            return;
        };
        match wake {
            Wake::Datagram(Ok((n, from))) => st.receive(from, received(&buf, n), t),
            Wake::Datagram(Err(e)) => warn!(error = %e, "recv_from failed"),
            Wake::HandlesGone => handles_open = false,
            Wake::Timer | Wake::Nudge => {}
        }
        // The first answer goes out at once: a peer with one request outstanding has its
        // next one on the way sooner, and the look below may find it already queued.
        st.pump(&shared.socket, t);
        // What else is queued in the socket is taken before its answers go out: one wake-up,
        // one batch, and the answers back to back, so that a peer woken by the first finds
        // the others queued instead of going back to sleep for each (on a VM every wake-up
        // is an inter-processor interrupt). Bounded, so that a flood cannot hold the timers
        // or the answers for long. A look at an empty socket costs no system call while
        // tokio knows it is not readable.
        for _ in 0..BATCH {
            let Ok((n, from)) = shared.socket.try_recv_from(&mut buf) else {
                break;
            };
            st.receive(from, received(&buf, n), t);
        }
        st.pump(&shared.socket, t);
        if st.node.poll_timeout().is_some_and(|d| d <= t) {
            st.node.handle_timeout(t);
        }
        blocked = st.pump(&shared.socket, t);
        st.export(t);
        if !handles_open && st.incoming.is_closed() && st.replies.is_empty() {
            debug!("pfcp endpoint stopping: no handle left");
            return;
        }
        // Moved only earlier, or when it has fired: the earliest deadline moves later with
        // nearly every completed request, and an early wake-up (which finds nothing due and
        // re-arms) is cheaper than a reset per turn.
        let target = tokio::time::Instant::from_std(st.node.poll_timeout().unwrap_or(t + IDLE));
        if target < timer.deadline() || timer.is_elapsed() {
            timer.as_mut().reset(target);
        }
        st.armed = Some(timer.deadline().into_std());
    }
}
