//! A [`tower_service::Service`] over an [`Endpoint`] (feature `tower`): send PFCP requests
//! (TS 29.244 clause 7) from tower middleware and clients.
//!
//! [`RequestService`] wraps a clone of an [`Endpoint`] handle; each call sends one request
//! message through [`Endpoint::request_with`] and resolves with its [`Response`] (the peer's,
//! or the one the node generated in its place), or with the endpoint's [`Error`]. Everything the endpoint does for its own callers applies:
//! the sequence number is allocated by the endpoint (clause 7.2.2.1: it is the transaction's
//! identity, so the one in the request octets is replaced), T1/N1 retransmission
//! ([`crate::xact`]), and on a CP function the overload throttles and redirection driven by
//! the [`RequestProfile`] (clause 6.2.4.4).
//!
//! ## Readiness and backpressure
//!
//! [`Service::poll_ready`] is always ready. The endpoint already refuses what it cannot carry,
//! per request and with the reason: its CP overload throttle rejects a request the UP function
//! asked it to shed (a local [`Response`] with Cause 74, in the shape of the UP's rejection,
//! clause 6.2.4.4), and its transaction limits refuse a request beyond the outstanding maximum
//! ([`Error::Xact`]). Those decisions depend on the destination and the priority of each
//! request, which `poll_ready` does not know; a service-wide "not ready" would stall
//! high-priority and emergency requests behind low-priority ones (the opposite of clause
//! 6.2.4.4's priority handling). Put tower's `ConcurrencyLimit` or `Buffer` in front if a
//! caller-side bound is wanted as well.
//!
//! ## Example
//!
//! ```no_run
//! use std::net::SocketAddr;
//! use bytes::Bytes;
//! use pfcp_node::service::{Request, RequestService};
//! use pfcp_node::{Endpoint, EndpointConfig, LocalNode};
//! use pfcp_overload::NodeKey;
//! use pfcp_wire::encode::MessageBuilder;
//! use pfcp_wire::ie::RecoveryTimeStamp;
//! use pfcp_wire::{Header, Message, MessageType};
//! use tower_service::Service;
//!
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! let local = LocalNode::cp(NodeKey::fqdn("smf1.example.net"), RecoveryTimeStamp(0xE8F4_0000));
//! let (endpoint, _channels) =
//!     Endpoint::bind(EndpointConfig::new(local.clone()), "0.0.0.0:8805".parse()?).await?;
//! let mut service = RequestService::new(endpoint);
//!
//! // A Heartbeat Request (Table 7.4.2.1-1: the Recovery Time Stamp); the endpoint sets the
//! // sequence number.
//! let heartbeat = MessageBuilder::new(Header::new(MessageType::HEARTBEAT_REQUEST))
//!     .ie(local.recovery_time_stamp);
//! let mut octets = vec![0; heartbeat.encoded_len()];
//! heartbeat.encode_into(&mut octets)?;
//!
//! let upf: SocketAddr = "192.0.2.1:8805".parse()?;
//! // Always ready: see "Readiness and backpressure".
//! std::future::poll_fn(|cx| service.poll_ready(cx)).await?;
//! let response = service.call(Request::new(upf, Bytes::from(octets))).await?;
//! assert_eq!(
//!     response.message()?.message_type(),
//!     MessageType::HEARTBEAT_RESPONSE
//! );
//! # Ok(())
//! # }
//! ```
//!
//! With tower's `ServiceExt` (crate `tower`, feature `util`) the readiness step is
//! `service.ready().await?` or, for one request, `service.oneshot(request).await`.

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use pfcp_wire::Message;
use tower_service::Service;

use crate::endpoint::{Endpoint, Error, RequestProfile};
use crate::node::Response;
use crate::xact::XactError;

/// One request for [`RequestService`]: where to send it, the encoded message, and the session
/// context for a CP function's overload control.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Request {
    /// The peer's address (its PFCP port, 8805 by default, clause 4.2).
    pub peer: SocketAddr,
    /// One encoded request message, header included (clause 7.2). Its sequence number is
    /// ignored: the endpoint allocates one per transaction. Its message priority (MP, clause
    /// 7.2.2.4.1) is kept; on a CP function without one, the [`RequestProfile`] decides.
    pub message: Bytes,
    /// The session context for the CP function's priority and throttling decision
    /// ([`Endpoint::request_with`]); `None` is [`RequestProfile::default`].
    pub profile: Option<RequestProfile>,
}

impl Request {
    /// A request of `message` (one encoded request, clause 7.2) to `peer`, without a profile.
    pub fn new(peer: SocketAddr, message: Bytes) -> Self {
        Request {
            peer,
            message,
            profile: None,
        }
    }

    /// With the session context `profile` (e.g. an emergency session, clause 6.2.4.4).
    #[must_use]
    pub fn with_profile(mut self, profile: RequestProfile) -> Self {
        self.profile = Some(profile);
        self
    }
}

/// A clonable [`Service`] sending [`Request`]s through an [`Endpoint`]; see the
/// [module docs](self).
#[derive(Debug, Clone)]
pub struct RequestService {
    endpoint: Endpoint,
}

impl RequestService {
    /// A service sending through `endpoint` (a handle: the endpoint keeps running while any
    /// handle, this one included, is alive), with its transactions (clause 6.4) and, on a CP
    /// function, its overload control (clause 6.2.4.4).
    pub fn new(endpoint: Endpoint) -> Self {
        RequestService { endpoint }
    }

    /// The endpoint handle the requests go through (e.g. for its association procedures,
    /// clause 6.2.6, which are not requests of this service).
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// Take the endpoint handle back (the endpoint, and its PFCP associations, clause 6.2.6,
    /// stay up while any handle is alive).
    pub fn into_inner(self) -> Endpoint {
        self.endpoint
    }
}

impl From<Endpoint> for RequestService {
    fn from(endpoint: Endpoint) -> Self {
        RequestService::new(endpoint)
    }
}

/// The future of [`RequestService::call`]: resolves with the response (clause 7.2),
/// or the endpoint's [`Error`].
pub struct ResponseFuture {
    inner: Pin<Box<dyn Future<Output = Result<Response, Error>> + Send + 'static>>,
}

impl fmt::Debug for ResponseFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResponseFuture").finish_non_exhaustive()
    }
}

impl Future for ResponseFuture {
    type Output = Result<Response, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.inner.as_mut().poll(cx)
    }
}

impl Service<Request> for RequestService {
    type Response = Response;
    type Error = Error;
    type Future = ResponseFuture;

    /// Always ready: the endpoint's own throttles apply per request (see the
    /// [module docs](self#readiness-and-backpressure)).
    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        Poll::Ready(Ok(()))
    }

    /// Send `request` and wait for its response. Fails with [`Error::Decode`] if the octets
    /// are not one well-formed PFCP message, [`Error::Xact`] if it is not a request (clause
    /// 7.3: only requests start a transaction), and otherwise as
    /// [`Endpoint::request_with`] does.
    fn call(&mut self, request: Request) -> ResponseFuture {
        let endpoint = self.endpoint.clone();
        ResponseFuture {
            inner: Box::pin(async move {
                let (header, ies) = split(&request.message)?;
                let profile = request.profile.unwrap_or_default();
                endpoint
                    .request_with(request.peer, header, ies, profile)
                    .await
            }),
        }
    }
}

/// The header and the IE octets of one encoded request, without copying the IEs.
fn split(message: &Bytes) -> Result<(pfcp_wire::Header, Bytes), Error> {
    let msg = Message::decode(message)?;
    let header = *msg.header();
    // Refused here rather than by the transaction layer, so that a response or an unknown
    // type never reaches a CP function's throttle accounting.
    if !header.message_type.is_request() {
        return Err(Error::Xact(XactError::NotARequest));
    }
    // `body` is a sub-slice of `message` by construction, which is all `slice_ref` needs.
    Ok((header, message.slice_ref(msg.body())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pfcp_wire::encode::{IeList, MessageBuilder};
    use pfcp_wire::ie::RecoveryTimeStamp;
    use pfcp_wire::{Cause, Header, MessageType, SequenceNumber};

    fn encoded<L: IeList>(b: MessageBuilder<L>) -> Bytes {
        let mut out = vec![0; b.encoded_len()];
        b.encode_into(&mut out).unwrap();
        Bytes::from(out)
    }

    #[test]
    fn split_keeps_the_header_and_the_ies() {
        let header = Header::new(MessageType::HEARTBEAT_REQUEST)
            .with_sequence(SequenceNumber::new(77).unwrap());
        let m = encoded(MessageBuilder::new(header).ie(RecoveryTimeStamp(5)));
        let (h, ies) = split(&m).unwrap();
        assert_eq!(h.message_type, MessageType::HEARTBEAT_REQUEST);
        assert_eq!(ies, m.slice(8..));
        assert_eq!(&ies[..], &[0x00, 0x60, 0x00, 0x04, 0, 0, 0, 5]);
    }

    #[test]
    fn split_refuses_responses_and_malformed_octets() {
        let rsp = encoded(
            MessageBuilder::new(Header::new(MessageType::HEARTBEAT_RESPONSE))
                .ie(RecoveryTimeStamp(5)),
        );
        assert!(matches!(
            split(&rsp),
            Err(Error::Xact(XactError::NotARequest))
        ));
        let node_rsp = encoded(
            MessageBuilder::new(Header::new(MessageType::ASSOCIATION_SETUP_RESPONSE))
                .ie(Cause::REQUEST_ACCEPTED),
        );
        assert!(split(&node_rsp).is_err());
        for bad in [
            &[][..],
            &[0x20, 0x01, 0x00],
            &[0x20, 0x01, 0x00, 0x40, 0, 0, 1, 0],
        ] {
            assert!(matches!(
                split(&Bytes::copy_from_slice(bad)),
                Err(Error::Decode(_))
            ));
        }
    }
}
