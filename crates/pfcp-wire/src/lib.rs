//! # pfcp-wire
//!
//! A zero-copy, panic-free codec for PFCP, the N4/Sxa/Sxb/Sxc protocol of 3GPP TS 29.244
//! (Release 18), built for the overload and load control features (clauses 6.2.3, 6.2.4).
//!
//! * **Header** (clause 7.2.2): S/SEID, MP with the 4-bit message priority in the upper nibble
//!   of octet 16 ([`MessagePriority`], 0 highest), FO bundling ([`Datagram`]), the 24-bit
//!   [`SequenceNumber`], and the Message Length checked against the data.
//! * **IEs** (clause 8.1): a zero-copy TLV iterator ([`ie::IeIter`]), vendor IEs with their
//!   Enterprise ID, lazy grouped IEs, resource limits ([`ie::DecodeLimits`]), and typed IEs:
//!   [`ie::OverloadControlInformation`], [`ie::LoadControlInformation`], [`ie::Metric`],
//!   [`ie::Timer`], [`ie::NodeId`], [`ie::FSeid`], [`Cause`], [`ie::RecoveryTimeStamp`],
//!   [`ie::CpFunctionFeatures`], [`ie::UpFunctionFeatures`], [`ie::OffendingIe`], ...
//! * **Typed messages** ([`msg`]): a struct per message type of clauses 7.4 and 7.5 (all 25),
//!   a field per IE of its table, decoded in one walk without allocation, built and encoded in
//!   one pass, and [`msg::AnyMessage`] to `match` on ([`Message::typed`]).
//! * **Messages**: typed accessors on any [`Message`], and [`Message::validate`] for the
//!   mandatory IEs of each type, whose error maps to the Cause and Offending IE to answer with;
//!   [`Message::view`]: the verdict and everything a node reads (OCI, LCI, Cause, Node ID,
//!   F-SEID, Recovery Time Stamp, the session rules) in one walk, without allocation;
//!   [`Message::decode_view`]: decode and view in one walk.
//! * **Session IEs** (clause 7.5, 8.2): Create/Update/Remove PDR, FAR, URR, QER, BAR, PDI,
//!   Forwarding Parameters, Created PDR, Usage Report, F-TEID, UE IP Address, Outer Header
//!   Creation, ... with builders and an owned form ([`ie::IntoOwned`]).
//! * **Encoding** ([`encode`]): exact `encoded_len`, writing into a caller's buffer, a `Vec` or
//!   `BytesMut` (feature `bytes`) with lengths patched in place.
//! * **Owned form** ([`owned::OwnedMessage`], lossless and wire-backed: one buffer of IE
//!   octets, edits that keep the grouped Lengths right; serde behind the `serde` feature).
//!
//! Every decoder is a total function: any input gives `Ok` or a [`DecodeError`] naming what,
//! where (offset) and in which IE. The crate forbids `unsafe` and denies `unwrap`, `expect`,
//! `panic` and slice indexing outside tests; fuzz targets check the contract.
//!
//! ## Example: an overloaded UP function rejects a session and advertises OCI
//!
//! ```
//! use std::net::Ipv4Addr;
//! use pfcp_wire::encode::{MessageWriter, SliceSink};
//! use pfcp_wire::ie::{ControlSequenceNumber, Metric, NodeId, OciFlags,
//!                     OverloadControlInformation, Timer};
//! use pfcp_wire::{Cause, Header, Message, MessagePriority, MessageType, SequenceNumber};
//!
//! // Build: Session Establishment Response, priority 3, rejected with cause 74 and an OCI
//! // asking for a 30 % reduction for 2 minutes, scoped to the Node ID (AOCI, clause 8.2.76).
//! let oci = OverloadControlInformation {
//!     sequence_number: ControlSequenceNumber(5),
//!     metric: Metric::new(30).unwrap(),
//!     period_of_validity: Timer::from_duration(std::time::Duration::from_secs(120)).unwrap(),
//!     flags: Some(OciFlags::AOCI),
//! };
//! let header = Header::new(MessageType::SESSION_ESTABLISHMENT_RESPONSE)
//!     .with_seid(1)
//!     .with_sequence(SequenceNumber::new(0x102).unwrap())
//!     .with_priority(MessagePriority::new(3).unwrap());
//! let mut buf = [0u8; 128];
//! let mut sink = SliceSink::new(&mut buf);
//! let mut w = MessageWriter::begin(&mut sink, &header)?;
//! w.ie(&NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 1)))?
//!     .ie(&Cause::PFCP_ENTITY_IN_CONGESTION)?
//!     .ie(&oci)?;
//! let n = w.finish()?;
//!
//! // Parse it back.
//! let msg = Message::decode(&buf[..n])?;
//! assert_eq!(msg.header().priority, MessagePriority::new(3));
//! assert_eq!(msg.cause()?, Some(Cause::PFCP_ENTITY_IN_CONGESTION));
//! let got = msg.overload_control_information()?.expect("OCI present");
//! assert_eq!(got.metric.percent(), 30);
//! assert!(got.aoci());
//! assert_eq!(got.period_of_validity.duration(), Some(std::time::Duration::from_secs(120)));
//! msg.validate()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Example: a UP function reads a Session Establishment Request in one walk
//!
//! ```
//! use std::net::Ipv4Addr;
//! use pfcp_wire::encode::MessageBuilder;
//! use pfcp_wire::ie::{ApplyAction, CreateFar, CreatePdr, FSeid, FTeid, FarId, NodeId, PdrId,
//!                     Pdi, Precedence, SourceInterface};
//! use pfcp_wire::{Header, Message, MessageType};
//!
//! // The SMF side: a PDR matching uplink packets on a tunnel the UPF is to choose (CH=1),
//! // forwarded by FAR 1 (TS 29.244 Tables 7.5.2.2-1, 7.5.2.3-1; F-TEID clause 8.2.3).
//! let pdr = CreatePdr::new(PdrId(1), Pdi::new(SourceInterface::ACCESS)
//!         .with_local_f_teid(FTeid::choose_ipv4(None)))
//!     .with_precedence(Precedence(255))
//!     .with_far_id(FarId(1));
//! let far = CreateFar::new(FarId(1), ApplyAction::FORW);
//! let node = NodeId::Ipv4(Ipv4Addr::new(192, 0, 2, 10));
//! let cp_fseid = FSeid { seid: 1, ipv4: Some(Ipv4Addr::new(192, 0, 2, 10)), ipv6: None };
//! let msg = MessageBuilder::new(Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST).with_seid(0))
//!     .ie(node).ie(cp_fseid).ie(&pdr).ie(&far);
//! let mut buf = vec![0u8; msg.encoded_len()];
//! msg.encode_into(&mut buf)?;
//!
//! // The UPF side: the verdict and what it reads, in one walk, without allocating.
//! // (`Message::decode(&buf)?.view()?` gives the same, in two walks.)
//! let view = Message::decode_view(&buf)?; // Err maps to the Cause and Offending IE to answer with
//! assert_eq!(view.f_seid.map(|f| f.seid), Some(1));
//! for rule in view.create_pdrs() {
//!     let rule = rule?;
//!     assert_eq!(rule.pdi.local_f_teid, Some(FTeid::choose_ipv4(None)));
//!     assert_eq!(rule.far_id, Some(FarId(1)));
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Example: a UP function answers a Session Establishment Request, typed
//!
//! ```
//! use std::net::Ipv4Addr;
//! use pfcp_wire::ie::{CreatedPdr, FSeid, FTeid, NodeId};
//! use pfcp_wire::msg::{SessionEstablishmentRequest, SessionEstablishmentResponse};
//! use pfcp_wire::Cause;
//!
//! // The digest's minimal request (section 4.14, decoded by scapy): MP=1 priority 5, Node ID
//! // 192.0.2.10, CP F-SEID 1, one Create PDR (PDR ID 1, Precedence 255, PDI from Access,
//! // FAR ID 1), one Create FAR (FAR ID 1, FORW).
//! let bytes = [
//!     0x23, 0x32, 0x00, 0x5a, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x02, 0x50,
//!     0x00, 0x3c, 0x00, 0x05, 0x00, 192, 0, 2, 10,
//!     0x00, 0x39, 0x00, 0x0d, 0x02, 0, 0, 0, 0, 0, 0, 0, 1, 192, 0, 2, 10,
//!     0x00, 0x01, 0x00, 0x1f, 0x00, 0x38, 0x00, 0x02, 0x00, 0x01,
//!     0x00, 0x1d, 0x00, 0x04, 0x00, 0x00, 0x00, 0xff,
//!     0x00, 0x02, 0x00, 0x05, 0x00, 0x14, 0x00, 0x01, 0x00,
//!     0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01,
//!     0x00, 0x03, 0x00, 0x0d, 0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01,
//!     0x00, 0x2c, 0x00, 0x01, 0x02,
//! ];
//! // One walk, no allocation; `Err` carries the Cause and Offending IE to answer with.
//! let req = SessionEstablishmentRequest::parse(&bytes)?;
//! let up = Ipv4Addr::new(198, 51, 100, 1);
//! let mut created = Vec::new();
//! for (i, pdr) in req.create_pdrs.iter().enumerate() {
//!     // A tunnel for each uplink PDR (a real UP function allocates the TEID).
//!     created.push(CreatedPdr::new(pdr.pdr_id).with_local_f_teid(FTeid::ipv4(0x100 + i as u32, up)));
//! }
//! let rsp = SessionEstablishmentResponse::new(NodeId::Ipv4(up), Cause::REQUEST_ACCEPTED)
//!     .with_up_f_seid(FSeid { seid: 0x77, ipv4: Some(up), ipv6: None })
//!     .with_created_pdrs(&created)
//!     // The response goes to the CP's SEID, with the request's sequence and priority.
//!     .with_seid(req.cp_f_seid.seid)
//!     .with_sequence(req.header.sequence);
//! let rsp = match req.header.priority {
//!     Some(p) => rsp.with_priority(p),
//!     None => rsp,
//! };
//! let out = rsp.to_vec()?;
//!
//! let back = SessionEstablishmentResponse::parse(&out)?;
//! assert_eq!(back.header.seid, Some(1));
//! assert_eq!(back.created_pdrs.first().map(|c| c.pdr_id.0), Some(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Policies where TS 29.244 leaves a choice
//!
//! * MP=1 on a node (S=0) header: ignored, no priority (the header has no priority octet).
//! * Unknown message types decode; [`Message::validate`] reports them (a node discards them).
//! * Unknown and vendor IEs (Enterprise ID 10415 included) are kept byte-exact and skipped.
//! * Metric above 100 reads as 0 %, Timer units 5 and 6 as minutes (both as the spec says).
//! * A malformed optional IE (OCI, LCI) fails only its own accessor, never the message.

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::unreachable,
        clippy::todo
    )
)]

pub mod cause;
pub mod encode;
pub mod error;
pub mod header;
pub mod ie;
pub mod message;
pub mod message_type;
pub mod msg;
pub mod owned;
pub mod presence;
pub mod view;

pub use cause::Cause;
pub use encode::Encode;
pub use error::{DecodeError, DecodeErrorKind, EncodeError, IePath};
pub use header::{Header, HeaderSummary, MessagePriority, SequenceNumber};
pub use ie::{DecodeLimits, IeType, RawIe, TypedIe};
pub use message::{Datagram, Message};
pub use message_type::{Direction, MessageType};
pub use view::MessageView;
