//! The typed messages (`pfcp_wire::msg`), shared by both benches and both instruction
//! counters: decode and read every field ([`touch_any`]: every IE of the message's table it
//! holds, every rule down to its repeated members, the other IEs), and build from values.
//!
//! "Read a field" is `black_box` of the decoded value (the decoder must have produced it), and
//! for a repeated IE, of each occurrence; for a `RawIe`, its type, length and first octet.

#![allow(dead_code)] // each binary uses a subset

use std::hint::black_box;

use pfcp_wire::ie::*;
use pfcp_wire::msg::{AnyMessage, IeList, MessageIe, OtherIes};
use pfcp_wire::{Cause, RawIe};

/// Reading a decoded field.
pub(crate) trait Touch {
    fn touch(&self) -> u64;
}

macro_rules! touch_value {
    ($($t:ty),* $(,)?) => {$(
        impl Touch for $t {
            #[inline(always)]
            fn touch(&self) -> u64 {
                black_box(self);
                1
            }
        }
    )*};
}

touch_value!(
    NodeId<'_>,
    FSeid,
    Cause,
    RecoveryTimeStamp,
    OffendingIe,
    CpFunctionFeatures,
    UpFunctionFeatures,
    OverloadControlInformation,
    LoadControlInformation,
    ReportType,
    FTeid,
    CreateUrr,
    CreateQer,
    CreateBar,
    UpdateUrr,
    UpdateQer,
    UpdateBar,
    RemovePdr,
    RemoveFar,
    RemoveUrr,
    RemoveQer,
    RemoveBar,
    UsageReportSmr,
    UsageReportSdr,
    UsageReportSrr,
);

/// Every member of a rule, its repeated ones iterated.
impl Touch for CreatePdr<'_> {
    #[inline(always)]
    fn touch(&self) -> u64 {
        black_box(self);
        1 + touch_iter(self.urr_ids.iter()) + touch_iter(self.qer_ids.iter()) + touch_pdi(&self.pdi)
    }
}

fn touch_pdi(p: &Pdi<'_>) -> u64 {
    touch_iter(p.ue_ip_addresses.iter())
        + touch_iter(p.sdf_filters.iter())
        + touch_iter(p.qfis.iter())
}

impl Touch for UpdatePdr<'_> {
    #[inline(always)]
    fn touch(&self) -> u64 {
        black_box(self);
        1 + touch_iter(self.urr_ids.iter())
            + touch_iter(self.qer_ids.iter())
            + self.pdi.as_ref().map_or(0, touch_pdi)
    }
}

impl Touch for CreateFar<'_> {
    #[inline(always)]
    fn touch(&self) -> u64 {
        black_box(self);
        1 + touch_iter(self.duplicating_parameters.iter())
    }
}

impl Touch for UpdateFar<'_> {
    #[inline(always)]
    fn touch(&self) -> u64 {
        black_box(self);
        1
    }
}

impl Touch for CreatedPdr<'_> {
    #[inline(always)]
    fn touch(&self) -> u64 {
        black_box(self);
        1 + touch_iter(self.ue_ip_addresses.iter())
    }
}

impl Touch for DownlinkDataReport<'_> {
    #[inline(always)]
    fn touch(&self) -> u64 {
        black_box(self);
        1 + touch_iter(self.pdr_ids.iter())
    }
}

#[inline(always)]
fn touch_iter<T>(it: impl Iterator<Item = T>) -> u64 {
    let mut n = 0;
    for x in it {
        black_box(&x);
        n += 1;
    }
    n
}

impl Touch for RawIe<'_> {
    #[inline(always)]
    fn touch(&self) -> u64 {
        let v = self.value();
        u64::from(self.ie_type().0) + v.len() as u64 + u64::from(v.first().copied().unwrap_or(0))
    }
}

impl<T: Touch> Touch for Option<T> {
    #[inline(always)]
    fn touch(&self) -> u64 {
        self.as_ref().map_or(0, Touch::touch)
    }
}

impl<'a, T: MessageIe<'a> + Touch> Touch for IeList<'a, T> {
    #[inline(always)]
    fn touch(&self) -> u64 {
        let mut n = 0u64;
        for x in self {
            n = n.wrapping_add(x.touch());
        }
        n
    }
}

impl Touch for OtherIes<'_> {
    #[inline(always)]
    fn touch(&self) -> u64 {
        let mut n = 0u64;
        for x in self {
            n = n.wrapping_add(x.touch());
        }
        n
    }
}

macro_rules! fields {
    ($m:ident; $($f:ident),* $(,)?) => {{
        let mut acc = u64::from($m.header.sequence.value());
        $(acc = acc.wrapping_add($m.$f.touch());)*
        acc
    }};
}

/// Every field of a typed message read.
#[inline(always)]
pub(crate) fn touch_any(t: &AnyMessage<'_>) -> u64 {
    use AnyMessage as A;
    match t {
        A::HeartbeatRequest(m) => fields!(m; recovery_time_stamp, source_ip_address, other),
        A::HeartbeatResponse(m) => fields!(m; recovery_time_stamp, other),
        A::PfdManagementRequest(m) => fields!(m; application_ids_pfds, node_id, other),
        A::PfdManagementResponse(m) => fields!(m; cause, offending_ie, node_id, other),
        A::AssociationSetupRequest(m) => fields!(m; node_id, recovery_time_stamp,
            up_function_features, cp_function_features, alternative_smf_ip_addresses, smf_set_id,
            pfcp_session_retention_information, ue_ip_address_pool_information,
            gtp_u_path_qos_control_information, clock_drift_control_information, upf_instance_id,
            pfcpasreq_flags, other),
        A::AssociationSetupResponse(m) => fields!(m; node_id, cause, recovery_time_stamp,
            up_function_features, cp_function_features, alternative_smf_ip_addresses, smf_set_id,
            pfcpasrsp_flags, clock_drift_control_information, ue_ip_address_pool_information,
            gtp_u_path_qos_control_information, upf_instance_id, other),
        A::AssociationUpdateRequest(m) => fields!(m; node_id, up_function_features,
            cp_function_features, pfcp_association_release_request, graceful_release_period,
            pfcpaureq_flags, alternative_smf_ip_addresses, smf_set_id,
            clock_drift_control_information, ue_ip_address_pool_information,
            gtp_u_path_qos_control_information, ue_ip_address_usage_information, other),
        A::AssociationUpdateResponse(m) => fields!(m; node_id, cause, up_function_features,
            cp_function_features, ue_ip_address_usage_information, other),
        A::AssociationReleaseRequest(m) => fields!(m; node_id, other),
        A::AssociationReleaseResponse(m) => fields!(m; node_id, cause, other),
        A::VersionNotSupportedResponse(m) => fields!(m; other),
        A::NodeReportRequest(m) => fields!(m; node_id, node_report_type,
            vendor_specific_node_report_type, user_plane_path_failure_report,
            user_plane_path_recovery_report, clock_drift_reports, gtp_u_path_qos_reports,
            peer_up_restart_report, other),
        A::NodeReportResponse(m) => fields!(m; node_id, cause, offending_ie, other),
        A::SessionSetDeletionRequest(m) => fields!(m; node_id, fq_csids, other),
        A::SessionSetDeletionResponse(m) => fields!(m; node_id, cause, offending_ie, other),
        A::SessionSetModificationRequest(m) => fields!(m; node_id, pfcp_session_change_info, other),
        A::SessionSetModificationResponse(m) => fields!(m; node_id, cause, offending_ie, other),
        A::SessionEstablishmentRequest(m) => fields!(m; node_id, cp_f_seid, create_pdrs,
            create_fars, create_urrs, create_qers, create_bar, create_traffic_endpoints, pdn_type,
            fq_csids, user_plane_inactivity_timer, user_id, trace_information, apn_dnn,
            create_mars, pfcpsereq_flags, create_bridge_info_for_tsc, create_srrs,
            provide_atsss_control_information, recovery_time_stamp, s_nssai,
            provide_rds_configuration_information, rat_type, l2tp_tunnel_information,
            l2tp_session_information, group_id, mbs_session_n4mb_control_information,
            mbs_session_n4_control_information, dscp_to_ppi_control_information, other),
        A::SessionEstablishmentResponse(m) => fields!(m; node_id, cause, offending_ie, up_f_seid,
            created_pdrs, load_control_information, overload_control_information, up_fq_csid,
            failed_rule_id, created_traffic_endpoints, created_bridge_info_for_tsc,
            atsss_control_parameters, rds_configuration_information, partial_failure_information,
            created_l2tp_session, mbs_session_n4mb_information, mbs_session_n4_information, other),
        A::SessionModificationRequest(m) => fields!(m; cp_f_seid, remove_pdrs, remove_fars,
            remove_urrs, remove_qers, remove_bar, remove_traffic_endpoints, create_pdrs,
            create_fars, create_urrs, create_qers, create_bar, create_traffic_endpoints,
            update_pdrs, update_fars, update_urrs, update_qers, update_bar,
            update_traffic_endpoints, pfcpsmreq_flags, query_urrs, fq_csids,
            user_plane_inactivity_timer, query_urr_reference, trace_information, remove_mars,
            update_mars, create_mars, node_id, tsc_management_information, remove_srrs,
            create_srrs, update_srrs, provide_atsss_control_information,
            ethernet_context_information, access_availability_information,
            query_packet_rate_status, s_nssai, rat_type, group_id,
            mbs_session_n4_control_information, dscp_to_ppi_control_information, other),
        A::SessionModificationResponse(m) => fields!(m; cause, offending_ie, created_pdrs,
            load_control_information, overload_control_information, usage_reports,
            failed_rule_id, additional_usage_reports_information, created_traffic_endpoints,
            tsc_management_information, atsss_control_parameters, updated_pdrs,
            packet_rate_status_reports, partial_failure_information, mbs_session_n4_information,
            other),
        A::SessionDeletionRequest(m) => fields!(m; other),
        A::SessionDeletionResponse(m) => fields!(m; cause, offending_ie, load_control_information,
            overload_control_information, usage_reports, additional_usage_reports_information,
            packet_rate_status_report, session_reports, mbs_session_n4_information,
            pfcpsdrsp_flags, other),
        A::SessionReportRequest(m) => fields!(m; report_type, downlink_data_report,
            usage_reports, error_indication_report, load_control_information,
            overload_control_information, additional_usage_reports_information, pfcpsrreq_flags,
            old_cp_f_seid, packet_rate_status_report, tsc_management_information,
            session_reports, cause, other),
        A::SessionReportResponse(m) => fields!(m; cause, offending_ie, update_bar,
            pfcpsrrsp_flags, cp_f_seid, n4_u_f_teid, alternative_smf_ip_address,
            pgw_c_smf_fq_csid, group_id, node_id, other),
        _ => 0,
    }
}

/// `AnyMessage::parse` (decode and type in one walk), then every field read.
#[inline(never)]
pub(crate) fn wire_typed(bytes: &[u8]) -> u64 {
    let t = AnyMessage::parse(bytes).expect("typed parse");
    touch_any(&t)
}

/// `AnyMessage::parse` only (no field read but the header).
#[inline(never)]
pub(crate) fn wire_typed_parse(bytes: &[u8]) -> u64 {
    let t = AnyMessage::parse(bytes).expect("typed parse");
    black_box(&t);
    u64::from(t.header().sequence.value())
}

/// [`wire_typed`] over a set of messages (the corpus bench).
#[inline(never)]
pub(crate) fn wire_typed_all(msgs: &[Vec<u8>]) -> u64 {
    let mut acc = 0u64;
    for b in msgs {
        let t = AnyMessage::parse(black_box(b)).expect("typed parse");
        acc = acc.wrapping_add(touch_any(&t));
    }
    acc
}
