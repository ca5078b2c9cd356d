//! The project's own sample capture (`samples/overload.pcap`): a short CP/UP exchange ending
//! in an overloaded UP function rejecting a session, built with `pfcp-wire`'s encoders.
//!
//! Classic pcap, LINKTYPE_ETHERNET, IPv4/UDP 8805 between 127.0.0.1 (CP function) and
//! 127.0.0.2 (UP function), with valid IPv4 and UDP checksums. Deterministic: no clock is
//! read, so regenerating gives the same octets.

use std::io::{self, Write};
use std::net::Ipv4Addr;
use std::path::Path;
use std::time::Duration;

use etherparse::PacketBuilder;
use pfcp_wire::encode::{Encode, MessageWriter};
use pfcp_wire::ie::{
    ControlSequenceNumber, CpFunctionFeatures, FSeid, Fqdn, LoadControlInformation, Metric, NodeId,
    OciFlags, OverloadControlInformation, RecoveryTimeStamp, Timer, UpFunctionFeatures,
};
use pfcp_wire::owned::{IeContent, OwnedIe};
use pfcp_wire::{Cause, EncodeError, Header, IeType, MessagePriority, MessageType, SequenceNumber};

const CP: [u8; 4] = [127, 0, 0, 1];
const UP: [u8; 4] = [127, 0, 0, 2];
/// 2026-01-01T00:00:00Z, the capture's first timestamp.
const START_UNIX: u32 = 1_767_225_600;

/// One frame of the sample: direction and UDP payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleFrame {
    /// Sent by the CP function (else by the UP function).
    pub from_cp: bool,
    /// The UDP payload (one or more PFCP messages).
    pub payload: Vec<u8>,
}

fn raw(t: IeType, body: &[u8]) -> OwnedIe {
    OwnedIe {
        ie_type: t,
        enterprise_id: None,
        content: IeContent::Raw(body.into()),
    }
}

fn grouped(t: IeType, children: Vec<OwnedIe>) -> OwnedIe {
    OwnedIe {
        ie_type: t,
        enterprise_id: None,
        content: IeContent::Grouped(children),
    }
}

fn seq(n: u32) -> SequenceNumber {
    SequenceNumber::wrapping(n)
}

/// A message from a header and its IEs.
fn message(header: &Header, ies: &[&dyn EncodeIe]) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    let mut w = MessageWriter::begin(&mut out, header)?;
    for ie in ies {
        ie.write_to(&mut w)?;
    }
    w.finish()?;
    Ok(out)
}

/// Object-safe bridge to [`Encode`] for a list of differently typed IEs.
trait EncodeIe {
    fn write_to(&self, w: &mut MessageWriter<'_, Vec<u8>>) -> Result<(), EncodeError>;
}

impl<T: Encode> EncodeIe for T {
    fn write_to(&self, w: &mut MessageWriter<'_, Vec<u8>>) -> Result<(), EncodeError> {
        w.ie(self).map(|_| ())
    }
}

/// The frames of the sample, in order.
pub fn sample_frames() -> Result<Vec<SampleFrame>, EncodeError> {
    let cp_started = RecoveryTimeStamp::from_unix(Duration::from_secs(1_767_222_000));
    let up_started = RecoveryTimeStamp::from_unix(Duration::from_secs(1_767_218_400));
    let cp_node = Fqdn::from_dotted("smf1.example.net")
        .map(NodeId::Fqdn)
        .map_err(|_| EncodeError::InvalidValue("FQDN"))?;
    let up_node = NodeId::Ipv4(Ipv4Addr::from(UP));
    let node = |t| Header::new(t);
    let session = |t, seid| Header::new(t).with_seid(seid);
    let priority = MessagePriority::new(3).ok_or(EncodeError::InvalidValue("priority"))?;

    let heartbeat_req = message(
        &node(MessageType::HEARTBEAT_REQUEST).with_sequence(seq(1)),
        &[&cp_started],
    )?;
    let heartbeat_resp = message(
        &node(MessageType::HEARTBEAT_RESPONSE).with_sequence(seq(1)),
        &[&up_started],
    )?;
    let cp_features = CpFunctionFeatures::empty()
        .with(CpFunctionFeatures::LOAD)
        .with(CpFunctionFeatures::OVRL);
    let assoc_req = message(
        &node(MessageType::ASSOCIATION_SETUP_REQUEST).with_sequence(seq(2)),
        &[&cp_node, &cp_started, &cp_features],
    )?;
    let up_features = UpFunctionFeatures::empty()
        .with(UpFunctionFeatures::FTUP)
        .with(UpFunctionFeatures::EMPU);
    let assoc_resp = message(
        &node(MessageType::ASSOCIATION_SETUP_RESPONSE).with_sequence(seq(2)),
        &[
            &up_node,
            &Cause::REQUEST_ACCEPTED,
            &up_started,
            &up_features,
        ],
    )?;

    // Session Establishment Request: the mandatory Node ID, CP F-SEID, Create PDR, Create FAR.
    let cp_fseid = FSeid {
        seid: 0x1001,
        ipv4: Some(Ipv4Addr::from(CP)),
        ipv6: None,
    };
    let create_pdr = grouped(
        IeType::CREATE_PDR,
        vec![
            raw(IeType::PDR_ID, &[0x00, 0x01]),
            raw(IeType::PRECEDENCE, &[0, 0, 0, 255]),
            grouped(IeType::PDI, vec![raw(IeType::SOURCE_INTERFACE, &[0x00])]),
            raw(IeType::FAR_ID, &[0, 0, 0, 1]),
        ],
    );
    let create_far = grouped(
        IeType::CREATE_FAR,
        vec![
            raw(IeType::FAR_ID, &[0, 0, 0, 1]),
            raw(IeType::APPLY_ACTION, &[0x02]),
        ],
    );
    let est_req = message(
        &session(MessageType::SESSION_ESTABLISHMENT_REQUEST, 0)
            .with_sequence(seq(3))
            .with_priority(priority),
        &[&cp_node, &cp_fseid, &create_pdr, &create_far],
    )?;

    // The UP function is overloaded: reject with cause 74, ask for 30 % less traffic for 2
    // minutes from the whole node (AOCI), and report an 85 % load.
    let oci = OverloadControlInformation {
        sequence_number: ControlSequenceNumber(1),
        metric: Metric::new(30).ok_or(EncodeError::InvalidValue("metric"))?,
        period_of_validity: Timer::from_duration(Duration::from_secs(120))
            .ok_or(EncodeError::InvalidValue("timer"))?,
        flags: Some(OciFlags::AOCI),
    };
    let lci = LoadControlInformation {
        sequence_number: ControlSequenceNumber(1),
        metric: Metric::new(85).ok_or(EncodeError::InvalidValue("metric"))?,
    };
    let est_resp = message(
        &session(MessageType::SESSION_ESTABLISHMENT_RESPONSE, 0x1001)
            .with_sequence(seq(3))
            .with_priority(priority),
        &[&up_node, &Cause::PFCP_ENTITY_IN_CONGESTION, &lci, &oci],
    )?;

    // Two Session Deletion Requests bundled in one datagram (FO=1 on the first).
    let mut bundle = message(
        &session(MessageType::SESSION_DELETION_REQUEST, 0x2001)
            .with_sequence(seq(4))
            .with_follow_on(true),
        &[],
    )?;
    bundle.extend(message(
        &session(MessageType::SESSION_DELETION_REQUEST, 0x2002).with_sequence(seq(5)),
        &[],
    )?);

    let frame = |from_cp, payload| SampleFrame { from_cp, payload };
    Ok(vec![
        frame(true, heartbeat_req),
        frame(false, heartbeat_resp),
        frame(true, assoc_req),
        frame(false, assoc_resp),
        frame(true, est_req),
        frame(false, est_resp),
        frame(true, bundle),
    ])
}

/// The sample as a classic pcap file (LINKTYPE_ETHERNET).
pub fn sample_pcap() -> io::Result<Vec<u8>> {
    let frames = sample_frames().map_err(|e| io::Error::other(e.to_string()))?;
    let mut out = Vec::new();
    // Global header: magic, version 2.4, thiszone, sigfigs, snaplen, LINKTYPE_ETHERNET.
    out.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&4u16.to_le_bytes());
    out.extend_from_slice(&0i32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&65_535u32.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    for (i, f) in frames.iter().enumerate() {
        let (src, dst, smac, dmac) = if f.from_cp {
            (CP, UP, [2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
        } else {
            (UP, CP, [2, 0, 0, 0, 0, 2], [2, 0, 0, 0, 0, 1])
        };
        let builder = PacketBuilder::ethernet2(smac, dmac)
            .ipv4(src, dst, 64)
            .udp(crate::capture::PFCP_PORT, crate::capture::PFCP_PORT);
        let mut packet = Vec::with_capacity(builder.size(f.payload.len()));
        builder
            .write(&mut packet, &f.payload)
            .map_err(|e| io::Error::other(e.to_string()))?;
        let len = u32::try_from(packet.len()).map_err(io::Error::other)?;
        let i = u32::try_from(i).map_err(io::Error::other)?;
        // One exchange per second, each answer 2 ms after its request.
        out.extend_from_slice(&(START_UNIX + i / 2).to_le_bytes());
        out.extend_from_slice(&(if f.from_cp { 0u32 } else { 2000 }).to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&packet);
    }
    Ok(out)
}

/// Write the sample capture to `path`.
pub fn write_sample_pcap(path: &Path) -> io::Result<()> {
    let bytes = sample_pcap()?;
    let mut f = std::fs::File::create(path)?;
    f.write_all(&bytes)?;
    f.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pfcp_wire::Datagram;

    #[test]
    fn every_message_decodes_and_validates() {
        let frames = sample_frames().unwrap();
        assert_eq!(frames.len(), 7);
        let mut count = 0;
        for f in &frames {
            for m in Datagram::new(&f.payload) {
                let m = m.unwrap();
                m.validate().unwrap();
                m.check_typed_ies().unwrap();
                count += 1;
            }
        }
        assert_eq!(count, 8);
        assert_eq!(sample_pcap().unwrap(), sample_pcap().unwrap());
    }
}
