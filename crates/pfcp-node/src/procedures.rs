//! The node-level procedures a node starts itself, and what their messages carry (TS 29.244
//! clauses 6.2.7 PFCP Association Update, 6.2.8 PFCP Association Release, 6.2.9 PFCP Node
//! Report): the values of the IEs that `pfcp-wire`'s typed messages hold as a
//! [`RawIe`], read totally and written through its encoder.
//!
//! * [`AssociationUpdate`]: what an Association Update Request of this node carries (its
//!   features, a [`ReleasePreparation`]), for
//!   [`Node::update_association`](crate::Node::update_association).
//! * [`NodeReport`]: a Node Report Request's report ([`NodeReportType`], the
//!   [`RemoteGtpuPeer`]s of a user plane path failure or recovery), for
//!   [`Node::send_node_report`](crate::Node::send_node_report) and
//!   [`PeerEvent::NodeReport`](crate::PeerEvent::NodeReport).
//!
//! ```
//! use std::net::Ipv4Addr;
//! use pfcp_node::procedures::{NodeReport, NodeReportType, RemoteGtpuPeer};
//!
//! // A UP function lost its GTP-U path to 192.0.2.77 (clause 6.2.9, User Plane Path Failure).
//! let report = NodeReport::path_failure([RemoteGtpuPeer::ipv4(Ipv4Addr::new(192, 0, 2, 77))]);
//! assert!(report.report_type.contains(NodeReportType::UPFR));
//! assert_eq!(report.path_failure.len(), 1);
//! ```

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use pfcp_wire::encode::put_ie_header;
use pfcp_wire::ie::{CpFunctionFeatures, Timer, UpFunctionFeatures};
use pfcp_wire::msg::{AssociationUpdateRequest, NodeReportRequest};
use pfcp_wire::{EncodeError, IeType, RawIe};

/// Node Report Type (IE type 101, clause 8.2.69): which reports a Node Report Request carries,
/// one flag per report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct NodeReportType(pub u8);

impl NodeReportType {
    /// UPFR (octet 5 bit 1, clause 8.2.69): User Plane Path Failure Report.
    pub const UPFR: NodeReportType = NodeReportType(0x01);
    /// UPRR (octet 5 bit 2, clause 8.2.69): User Plane Path Recovery Report.
    pub const UPRR: NodeReportType = NodeReportType(0x02);
    /// CKDR (octet 5 bit 3, clause 8.2.69): Clock Drift Report.
    pub const CKDR: NodeReportType = NodeReportType(0x04);
    /// GPQR (octet 5 bit 4, clause 8.2.69): GTP-U Path QoS Report.
    pub const GPQR: NodeReportType = NodeReportType(0x08);
    /// PURR (octet 5 bit 5, clause 8.2.69): Peer UP Restart Report.
    pub const PURR: NodeReportType = NodeReportType(0x10);
    /// VSR (octet 5 bit 6, clause 8.2.69): Vendor-Specific Report.
    pub const VSR: NodeReportType = NodeReportType(0x20);

    /// No flag set (clause 8.2.69).
    pub const fn empty() -> Self {
        NodeReportType(0)
    }

    /// With the flags of `other` set too (clause 8.2.69).
    #[must_use]
    pub const fn with(self, other: NodeReportType) -> Self {
        NodeReportType(self.0 | other.0)
    }

    /// Whether every flag of `other` is set (clause 8.2.69).
    pub const fn contains(self, other: NodeReportType) -> bool {
        self.0 & other.0 == other.0
    }

    /// The value of a received Node Report Type IE: its first octet; `None` if it has none
    /// (clause 8.2.69: Length at least 1; later octets are spare).
    pub fn from_raw(ie: &RawIe<'_>) -> Option<Self> {
        (ie.ie_type() == IeType::NODE_REPORT_TYPE)
            .then(|| ie.value().first().copied().map(NodeReportType))
            .flatten()
    }
}

/// Remote GTP-U Peer (IE type 103, clause 8.2.70): the GTP-U peer of a user plane path, by
/// its IPv4 and/or IPv6 address. The Destination Interface and Network Instance fields (DI,
/// NI) are skipped when read and not written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RemoteGtpuPeer {
    /// The IPv4 address (flag V4, clause 8.2.70).
    pub ipv4: Option<Ipv4Addr>,
    /// The IPv6 address (flag V6, clause 8.2.70).
    pub ipv6: Option<Ipv6Addr>,
}

impl RemoteGtpuPeer {
    /// A peer known by its IPv4 address (clause 8.2.70, V4).
    pub const fn ipv4(addr: Ipv4Addr) -> Self {
        RemoteGtpuPeer {
            ipv4: Some(addr),
            ipv6: None,
        }
    }

    /// A peer known by `addr` (clause 8.2.70, V4 or V6).
    pub const fn ip(addr: IpAddr) -> Self {
        match addr {
            IpAddr::V4(a) => RemoteGtpuPeer::ipv4(a),
            IpAddr::V6(a) => RemoteGtpuPeer {
                ipv4: None,
                ipv6: Some(a),
            },
        }
    }

    /// The value of a Remote GTP-U Peer IE (flags, then IPv4, then IPv6; clause 8.2.70);
    /// `None` if it is shorter than its flags say or names no address.
    pub fn decode_value(value: &[u8]) -> Option<Self> {
        let (&flags, rest) = value.split_first()?;
        let (ipv4, rest) = if flags & 0x02 != 0 {
            let (a, rest) = rest.split_first_chunk::<4>()?;
            (Some(Ipv4Addr::from(*a)), rest)
        } else {
            (None, rest)
        };
        let ipv6 = if flags & 0x01 != 0 {
            let (a, _) = rest.split_first_chunk::<16>()?;
            Some(Ipv6Addr::from(*a))
        } else {
            None
        };
        (ipv4.is_some() || ipv6.is_some()).then_some(RemoteGtpuPeer { ipv4, ipv6 })
    }

    fn value_len(&self) -> usize {
        1 + self.ipv4.map_or(0, |_| 4) + self.ipv6.map_or(0, |_| 16)
    }

    /// Write the whole IE (Type 103, Length, value) to `out` (clause 8.2.70).
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        put_ie_header(out, IeType::REMOTE_GTP_U_PEER, self.value_len())?;
        let flags = u8::from(self.ipv6.is_some()) | (u8::from(self.ipv4.is_some()) << 1);
        out.push(flags);
        if let Some(a) = self.ipv4 {
            out.extend_from_slice(&a.octets());
        }
        if let Some(a) = self.ipv6 {
            out.extend_from_slice(&a.octets());
        }
        Ok(())
    }
}

/// The report of a Node Report Request (Table 7.4.5.1.1-1, clause 6.2.9): its type and the
/// reports this crate reads (user plane path failure and recovery). A received request's other
/// reports (clock drift, GTP-U path QoS, peer UP restart, vendor-specific) are left in the
/// message, which [`PeerEvent::NodeReport`](crate::PeerEvent::NodeReport) carries too.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct NodeReport {
    /// Node Report Type (M, clause 8.2.69).
    pub report_type: NodeReportType,
    /// The GTP-U peers of the User Plane Path Failure Report (C: with UPFR; Table
    /// 7.4.5.1.2-1).
    pub path_failure: Vec<RemoteGtpuPeer>,
    /// The GTP-U peers of the User Plane Path Recovery Report (C: with UPRR; Table
    /// 7.4.5.1.3-1).
    pub path_recovery: Vec<RemoteGtpuPeer>,
}

impl NodeReport {
    /// A User Plane Path Failure Report (UPFR) naming the GTP-U peers that can no longer be
    /// reached (clause 6.2.9, Table 7.4.5.1.2-1).
    pub fn path_failure(peers: impl IntoIterator<Item = RemoteGtpuPeer>) -> Self {
        NodeReport {
            report_type: NodeReportType::UPFR,
            path_failure: peers.into_iter().collect(),
            path_recovery: Vec::new(),
        }
    }

    /// A User Plane Path Recovery Report (UPRR) naming the GTP-U peers reachable again
    /// (clause 6.2.9, Table 7.4.5.1.3-1).
    pub fn path_recovery(peers: impl IntoIterator<Item = RemoteGtpuPeer>) -> Self {
        NodeReport {
            report_type: NodeReportType::UPRR,
            path_failure: Vec::new(),
            path_recovery: peers.into_iter().collect(),
        }
    }

    /// The report a received Node Report Request carries (Table 7.4.5.1.1-1): the peers of a
    /// path failure or recovery report that do not decode are left out.
    pub fn from_request(req: &NodeReportRequest<'_>) -> Option<Self> {
        let report_type = NodeReportType::from_raw(&req.node_report_type)?;
        let peers = |ie: &Option<RawIe<'_>>| -> Vec<RemoteGtpuPeer> {
            ie.as_ref().map_or_else(Vec::new, |g| {
                g.children()
                    .filter_map(Result::ok)
                    .filter(|c| c.ie_type() == IeType::REMOTE_GTP_U_PEER)
                    .filter_map(|c| RemoteGtpuPeer::decode_value(c.value()))
                    .collect()
            })
        };
        Some(NodeReport {
            report_type,
            path_failure: peers(&req.user_plane_path_failure_report),
            path_recovery: peers(&req.user_plane_path_recovery_report),
        })
    }

    /// The TLVs of the report's IEs, for [`NodeReport::request`]: the Node Report Type, then
    /// the grouped path failure and path recovery reports (each only if it names a peer).
    pub(crate) fn tlvs(&self) -> Result<ReportTlvs, EncodeError> {
        let mut report_type = Vec::with_capacity(5);
        let t = self.report_type;
        put_ie_header(&mut report_type, IeType::NODE_REPORT_TYPE, 1)?;
        report_type.push(t.0);
        let group = |ty: IeType, peers: &[RemoteGtpuPeer]| -> Result<Vec<u8>, EncodeError> {
            if peers.is_empty() {
                return Ok(Vec::new());
            }
            let len = peers.iter().map(|p| 4 + p.value_len()).sum();
            let mut out = Vec::with_capacity(4 + len);
            put_ie_header(&mut out, ty, len)?;
            for p in peers {
                p.encode(&mut out)?;
            }
            Ok(out)
        };
        Ok(ReportTlvs {
            report_type,
            failure: group(IeType::USER_PLANE_PATH_FAILURE_REPORT, &self.path_failure)?,
            recovery: group(IeType::USER_PLANE_PATH_RECOVERY_REPORT, &self.path_recovery)?,
        })
    }
}

/// The encoded IEs of a [`NodeReport`], which the typed [`NodeReportRequest`] borrows.
#[derive(Debug)]
pub(crate) struct ReportTlvs {
    report_type: Vec<u8>,
    failure: Vec<u8>,
    recovery: Vec<u8>,
}

impl ReportTlvs {
    /// The Node Report Request of `node_id` with these IEs (Table 7.4.5.1.1-1).
    pub(crate) fn request<'a>(
        &'a self,
        node_id: pfcp_wire::ie::NodeId<'a>,
    ) -> Result<NodeReportRequest<'a>, EncodeError> {
        let raw = |tlv: &'a [u8]| {
            RawIe::from_tlv(tlv).map_err(|_| EncodeError::InvalidValue("node report IE"))
        };
        let mut req = NodeReportRequest::new(node_id, raw(&self.report_type)?);
        if !self.failure.is_empty() {
            req = req.with_user_plane_path_failure_report(raw(&self.failure)?);
        }
        if !self.recovery.is_empty() {
            req = req.with_user_plane_path_recovery_report(raw(&self.recovery)?);
        }
        Ok(req)
    }
}

/// A UP function's request to release its association, in an Association Update Request
/// (clause 6.2.7, Table 7.4.4.3-1; the UP function initiated release of clause 6.2.8): the
/// PFCP Association Release Request IE (type 111, clause 8.2.77: flags SARR and URSS) and the
/// Graceful Release Period IE (type 112, clause 8.2.78).
///
/// The CP function stops establishing sessions on the UP function, releases its sessions
/// (within the graceful release period, if one is given) and then the association
/// ([`Node::release_association`](crate::Node::release_association)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ReleasePreparation {
    /// SARR (octet 5 bit 1, clause 8.2.77): the UP function asks the CP function to release
    /// the association.
    pub sarr: bool,
    /// URSS (octet 5 bit 2, clause 8.2.77): the UP function will send non-zero usage reports
    /// of the sessions the release affects.
    pub urss: bool,
    /// How long the CP function has before the UP function goes away (Graceful Release Period,
    /// clause 8.2.78: the encoding of the GPRS Timer, as [`Timer`]).
    pub graceful_release_period: Option<Timer>,
}

impl ReleasePreparation {
    /// SARR set: release the association now (clause 6.2.8).
    pub const fn release() -> Self {
        ReleasePreparation {
            sarr: true,
            urss: false,
            graceful_release_period: None,
        }
    }

    /// With a Graceful Release Period (clause 6.2.7).
    #[must_use]
    pub const fn with_graceful_release_period(mut self, period: Timer) -> Self {
        self.graceful_release_period = Some(period);
        self
    }

    /// With URSS (clause 8.2.77: usage reports will follow).
    #[must_use]
    pub const fn with_urss(mut self, urss: bool) -> Self {
        self.urss = urss;
        self
    }

    /// What a received Association Update Request asks (Table 7.4.4.3-1); `None` if it
    /// carries neither IE. A PFCP Association Release Request IE without a flags octet counts
    /// as no flag.
    pub fn from_request(req: &AssociationUpdateRequest<'_>) -> Option<Self> {
        let flags = req
            .pfcp_association_release_request
            .as_ref()
            .map(|ie| ie.value().first().copied().unwrap_or(0));
        let period = req
            .graceful_release_period
            .as_ref()
            .and_then(|ie| ie.value().first().copied().map(Timer));
        if flags.is_none() && period.is_none() {
            return None;
        }
        let flags = flags.unwrap_or(0);
        Some(ReleasePreparation {
            sarr: flags & 0x01 != 0,
            urss: flags & 0x02 != 0,
            graceful_release_period: period,
        })
    }
}

/// What this node's Association Update Request carries (clause 6.2.7, Table 7.4.4.3-1),
/// besides its Node ID.
///
/// ```
/// use pfcp_node::procedures::{AssociationUpdate, ReleasePreparation};
/// use pfcp_wire::ie::{Timer, TimerUnit};
///
/// // A UP function going down within 2 minutes (clause 6.2.7: graceful release).
/// let period = Timer::new(TimerUnit::OneMinute, 2).unwrap();
/// let update = AssociationUpdate::release(ReleasePreparation::release().with_graceful_release_period(period));
/// assert!(!update.features);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub struct AssociationUpdate {
    /// Carry this node's CP or UP Function Features (Table 7.4.4.3-1; as set with
    /// [`Node::set_cp_features`](crate::Node::set_cp_features) /
    /// [`Node::set_up_features`](crate::Node::set_up_features)).
    pub features: bool,
    /// A UP function's request to release the association (clause 6.2.8).
    pub release: Option<ReleasePreparation>,
}

impl AssociationUpdate {
    /// An update carrying this node's current features (clause 6.2.7).
    pub const fn features() -> Self {
        AssociationUpdate {
            features: true,
            release: None,
        }
    }

    /// An update asking for the association's release (clauses 6.2.7, 6.2.8).
    pub const fn release(release: ReleasePreparation) -> Self {
        AssociationUpdate {
            features: false,
            release: Some(release),
        }
    }

    /// With this node's features too (clause 6.2.7).
    #[must_use]
    pub const fn with_features(mut self, features: bool) -> Self {
        self.features = features;
        self
    }

    /// The TLVs of the release IEs (types 111 and 112), which the typed request borrows.
    pub(crate) fn release_tlvs(&self) -> Result<(Vec<u8>, Vec<u8>), EncodeError> {
        let Some(r) = self.release else {
            return Ok((Vec::new(), Vec::new()));
        };
        let mut flags = Vec::with_capacity(5);
        put_ie_header(&mut flags, IeType::PFCP_ASSOCIATION_RELEASE_REQUEST, 1)?;
        flags.push(u8::from(r.sarr) | (u8::from(r.urss) << 1));
        let mut period = Vec::new();
        if let Some(t) = r.graceful_release_period {
            put_ie_header(&mut period, IeType::GRACEFUL_RELEASE_PERIOD, 1)?;
            period.push(t.0);
        }
        Ok((flags, period))
    }
}

/// The features an Association Update Request carries (Table 7.4.4.3-1), as a peer event
/// reports them.
pub(crate) fn update_request<'a>(
    node_id: pfcp_wire::ie::NodeId<'a>,
    cp: Option<CpFunctionFeatures>,
    up: Option<UpFunctionFeatures>,
    release: &'a (Vec<u8>, Vec<u8>),
) -> Result<AssociationUpdateRequest<'a>, EncodeError> {
    let raw = |tlv: &'a [u8]| {
        RawIe::from_tlv(tlv).map_err(|_| EncodeError::InvalidValue("association update IE"))
    };
    let mut req = AssociationUpdateRequest::new(node_id);
    if let Some(f) = up {
        req = req.with_up_function_features(f);
    }
    if let Some(f) = cp {
        req = req.with_cp_function_features(f);
    }
    if !release.0.is_empty() {
        req = req.with_pfcp_association_release_request(raw(&release.0)?);
    }
    if !release.1.is_empty() {
        req = req.with_graceful_release_period(raw(&release.1)?);
    }
    Ok(req)
}

#[cfg(test)]
mod tests;
