//! The grouped IEs of the session messages (TS 29.244 clause 7.5): the rules a Session
//! Establishment or Modification Request creates, updates and removes (PDR, FAR, URR, QER,
//! BAR), their members (PDI, Forwarding and Duplicating Parameters), and what the UP function
//! reports back (Created PDR, Usage Report, Downlink Data Report).
//!
//! Each type holds the members this crate types; other members (Transport Level Marking,
//! Activation Time, Ethernet filters, ...) are skipped by the typed form. Keep the
//! [`RawIe`](crate::RawIe) or the [`OwnedMessage`](crate::owned::OwnedMessage) to re-encode a
//! message unchanged.

use crate::ie::grouped::grouped_ie;
use crate::ie::{
    ApplicationId, ApplyAction, BarId, DestinationInterface, DownlinkDataNotificationDelay,
    DurationMeasurement, FTeid, FarId, GateStatus, Gbr, Mbr, MeasurementMethod, NetworkInstance,
    OuterHeaderCreation, OuterHeaderRemoval, PdrId, Precedence, QerCorrelationId, QerId, Qfi,
    Repeated, ReportingTriggers, SdfFilter, SourceInterface, TimeQuota, TimeThreshold, UeIpAddress,
    UrSeqn, UrrId, UsageReportTrigger, VolumeMeasurement, VolumeQuota, VolumeThreshold,
};

grouped_ie! {
    /// Create PDR (type 1, Table 7.5.2.2-1): a Packet Detection Rule.
    CreatePdr<'a>, CREATE_PDR,
    mandatory {
        /// PDR ID (M).
        pdr_id: PdrId,
        /// PDI (M): what the rule matches.
        pdi: Pdi<'a>,
    }
    optional {
        /// Precedence (M, except on Sxa where it does not apply: so optional here).
        precedence / with_precedence: Precedence,
        /// Outer Header Removal (C).
        outer_header_removal / with_outer_header_removal: OuterHeaderRemoval,
        /// FAR ID (C): the FAR applied to matching packets.
        far_id / with_far_id: FarId,
    }
    repeated {
        /// URR IDs (C).
        urr_ids / with_urr_id: UrrId => Repeated<'a, UrrId>,
        /// QER IDs (C).
        qer_ids / with_qer_id: QerId => Repeated<'a, QerId>,
    }
    order { pdr_id, precedence, pdi, outer_header_removal, far_id, urr_ids, qer_ids }
}

grouped_ie! {
    /// PDI (type 2, Table 7.5.2.2-2): the Packet Detection Information of a PDR.
    Pdi<'a>, PDI,
    mandatory {
        /// Source Interface (M).
        source_interface: SourceInterface,
    }
    optional {
        /// Local F-TEID (C): the GTP-U tunnel the packets arrive on (or CH=1: allocate one).
        local_f_teid / with_local_f_teid: FTeid,
        /// Network Instance (C).
        network_instance / with_network_instance: NetworkInstance<'a>,
        /// Application ID (C).
        application_id / with_application_id: ApplicationId<'a>,
    }
    repeated {
        /// UE IP Addresses (C).
        ue_ip_addresses / with_ue_ip_address: UeIpAddress => Repeated<'a, UeIpAddress>,
        /// SDF Filters (C).
        sdf_filters / with_sdf_filter: SdfFilter<'a> => Repeated<'a, SdfFilter<'a>>,
        /// QFIs (C).
        qfis / with_qfi: Qfi => Repeated<'a, Qfi>,
    }
    order { source_interface, local_f_teid, network_instance, ue_ip_addresses, sdf_filters, application_id, qfis }
}

grouped_ie! {
    /// Create FAR (type 3, Table 7.5.2.3-1): a Forwarding Action Rule.
    CreateFar<'a>, CREATE_FAR,
    mandatory {
        /// FAR ID (M).
        far_id: FarId,
        /// Apply Action (M).
        apply_action: ApplyAction,
    }
    optional {
        /// Forwarding Parameters (C: when the action forwards).
        forwarding_parameters / with_forwarding_parameters: ForwardingParameters<'a>,
        /// BAR ID (O).
        bar_id / with_bar_id: BarId,
    }
    repeated {
        /// Duplicating Parameters (C).
        duplicating_parameters / with_duplicating_parameters:
            DuplicatingParameters => Repeated<'a, DuplicatingParameters>,
    }
    order { far_id, apply_action, forwarding_parameters, duplicating_parameters, bar_id }
}

grouped_ie! {
    /// Forwarding Parameters (type 4, Table 7.5.2.3-2).
    ForwardingParameters<'a>, FORWARDING_PARAMETERS,
    mandatory {
        /// Destination Interface (M).
        destination_interface: DestinationInterface,
    }
    optional {
        /// Network Instance (C).
        network_instance / with_network_instance: NetworkInstance<'a>,
        /// Outer Header Creation (C).
        outer_header_creation / with_outer_header_creation: OuterHeaderCreation,
    }
    repeated {}
    order { destination_interface, network_instance, outer_header_creation }
}

grouped_ie! {
    /// Duplicating Parameters (type 5, Table 7.5.2.3-3).
    DuplicatingParameters, DUPLICATING_PARAMETERS,
    mandatory {
        /// Destination Interface (M).
        destination_interface: DestinationInterface,
    }
    optional {
        /// Outer Header Creation (C).
        outer_header_creation / with_outer_header_creation: OuterHeaderCreation,
    }
    repeated {}
    order { destination_interface, outer_header_creation }
}

grouped_ie! {
    /// Create URR (type 6, Table 7.5.2.4-1): a Usage Reporting Rule.
    CreateUrr, CREATE_URR,
    mandatory {
        /// URR ID (M).
        urr_id: UrrId,
        /// Measurement Method (M).
        measurement_method: MeasurementMethod,
        /// Reporting Triggers (M).
        reporting_triggers: ReportingTriggers,
    }
    optional {
        /// Volume Threshold (C).
        volume_threshold / with_volume_threshold: VolumeThreshold,
        /// Volume Quota (C).
        volume_quota / with_volume_quota: VolumeQuota,
        /// Time Threshold (C).
        time_threshold / with_time_threshold: TimeThreshold,
        /// Time Quota (C).
        time_quota / with_time_quota: TimeQuota,
    }
    repeated {}
    order { urr_id, measurement_method, reporting_triggers, volume_threshold, volume_quota, time_threshold, time_quota }
}

grouped_ie! {
    /// Create QER (type 7, Table 7.5.2.5-1): a QoS Enforcement Rule.
    CreateQer, CREATE_QER,
    mandatory {
        /// QER ID (M).
        qer_id: QerId,
        /// Gate Status (M).
        gate_status: GateStatus,
    }
    optional {
        /// QER Correlation ID (C).
        qer_correlation_id / with_qer_correlation_id: QerCorrelationId,
        /// Maximum Bitrate (C).
        mbr / with_mbr: Mbr,
        /// Guaranteed Bitrate (C).
        gbr / with_gbr: Gbr,
        /// QoS flow identifier (C).
        qfi / with_qfi: Qfi,
    }
    repeated {}
    order { qer_id, qer_correlation_id, gate_status, mbr, gbr, qfi }
}

grouped_ie! {
    /// Create BAR (type 85, Table 7.5.2.6-1): a Buffering Action Rule.
    CreateBar, CREATE_BAR,
    mandatory {
        /// BAR ID (M).
        bar_id: BarId,
    }
    optional {
        /// Downlink Data Notification Delay (C).
        downlink_data_notification_delay / with_downlink_data_notification_delay:
            DownlinkDataNotificationDelay,
    }
    repeated {}
    order { bar_id, downlink_data_notification_delay }
}

grouped_ie! {
    /// Created PDR (type 8, Table 7.5.3.2-1): what the UP function allocated for a PDR
    /// (Session Establishment and Modification Responses).
    CreatedPdr<'a>, CREATED_PDR,
    mandatory {
        /// PDR ID (M).
        pdr_id: PdrId,
    }
    optional {
        /// Local F-TEID (C): the tunnel endpoint the UP function chose.
        local_f_teid / with_local_f_teid: FTeid,
    }
    repeated {
        /// UE IP Addresses (C): the addresses the UP function allocated.
        ue_ip_addresses / with_ue_ip_address: UeIpAddress => Repeated<'a, UeIpAddress>,
    }
    order { pdr_id, local_f_teid, ue_ip_addresses }
}

grouped_ie! {
    /// Update PDR (type 9, Table 7.5.4.2-1).
    UpdatePdr<'a>, UPDATE_PDR,
    mandatory {
        /// PDR ID (M).
        pdr_id: PdrId,
    }
    optional {
        /// Outer Header Removal (C).
        outer_header_removal / with_outer_header_removal: OuterHeaderRemoval,
        /// Precedence (C).
        precedence / with_precedence: Precedence,
        /// PDI (C).
        pdi / with_pdi: Pdi<'a>,
        /// FAR ID (C).
        far_id / with_far_id: FarId,
    }
    repeated {
        /// URR IDs (C).
        urr_ids / with_urr_id: UrrId => Repeated<'a, UrrId>,
        /// QER IDs (C).
        qer_ids / with_qer_id: QerId => Repeated<'a, QerId>,
    }
    order { pdr_id, outer_header_removal, precedence, pdi, far_id, urr_ids, qer_ids }
}

grouped_ie! {
    /// Update FAR (type 10, Table 7.5.4.3-1).
    UpdateFar<'a>, UPDATE_FAR,
    mandatory {
        /// FAR ID (M).
        far_id: FarId,
    }
    optional {
        /// Apply Action (C).
        apply_action / with_apply_action: ApplyAction,
        /// Update Forwarding Parameters (C).
        update_forwarding_parameters / with_update_forwarding_parameters:
            UpdateForwardingParameters<'a>,
        /// BAR ID (C).
        bar_id / with_bar_id: BarId,
    }
    repeated {}
    order { far_id, apply_action, update_forwarding_parameters, bar_id }
}

grouped_ie! {
    /// Update Forwarding Parameters (type 11, Table 7.5.4.3-2).
    UpdateForwardingParameters<'a>, UPDATE_FORWARDING_PARAMETERS,
    mandatory {}
    optional {
        /// Destination Interface (C).
        destination_interface / with_destination_interface: DestinationInterface,
        /// Network Instance (C).
        network_instance / with_network_instance: NetworkInstance<'a>,
        /// Outer Header Creation (C).
        outer_header_creation / with_outer_header_creation: OuterHeaderCreation,
    }
    repeated {}
    order { destination_interface, network_instance, outer_header_creation }
}

grouped_ie! {
    /// Update URR (type 13, Table 7.5.4.4-1).
    UpdateUrr, UPDATE_URR,
    mandatory {
        /// URR ID (M).
        urr_id: UrrId,
    }
    optional {
        /// Measurement Method (C).
        measurement_method / with_measurement_method: MeasurementMethod,
        /// Reporting Triggers (C).
        reporting_triggers / with_reporting_triggers: ReportingTriggers,
        /// Volume Threshold (C).
        volume_threshold / with_volume_threshold: VolumeThreshold,
        /// Volume Quota (C).
        volume_quota / with_volume_quota: VolumeQuota,
        /// Time Threshold (C).
        time_threshold / with_time_threshold: TimeThreshold,
        /// Time Quota (C).
        time_quota / with_time_quota: TimeQuota,
    }
    repeated {}
    order { urr_id, measurement_method, reporting_triggers, volume_threshold, volume_quota, time_threshold, time_quota }
}

grouped_ie! {
    /// Update QER (type 14, Table 7.5.4.5-1).
    UpdateQer, UPDATE_QER,
    mandatory {
        /// QER ID (M).
        qer_id: QerId,
    }
    optional {
        /// Gate Status (C).
        gate_status / with_gate_status: GateStatus,
        /// QER Correlation ID (C).
        qer_correlation_id / with_qer_correlation_id: QerCorrelationId,
        /// Maximum Bitrate (C).
        mbr / with_mbr: Mbr,
        /// Guaranteed Bitrate (C).
        gbr / with_gbr: Gbr,
        /// QoS flow identifier (C).
        qfi / with_qfi: Qfi,
    }
    repeated {}
    order { qer_id, qer_correlation_id, gate_status, mbr, gbr, qfi }
}

grouped_ie! {
    /// Update BAR within a Session Modification Request (type 86, clause 7.5.4).
    UpdateBar, UPDATE_BAR_SMR,
    mandatory {
        /// BAR ID (M).
        bar_id: BarId,
    }
    optional {
        /// Downlink Data Notification Delay (C).
        downlink_data_notification_delay / with_downlink_data_notification_delay:
            DownlinkDataNotificationDelay,
    }
    repeated {}
    order { bar_id, downlink_data_notification_delay }
}

macro_rules! remove_ie {
    ($(#[$doc:meta])* $name:ident, $code:ident, $field:ident: $t:ty) => {
        grouped_ie! {
            $(#[$doc])*
            $name, $code,
            mandatory {
                /// The rule to remove (M).
                $field: $t,
            }
            optional {}
            repeated {}
            order { $field }
        }
    };
}

remove_ie!(
    /// Remove PDR (type 15, Table 7.5.4.6-1).
    RemovePdr, REMOVE_PDR, pdr_id: PdrId
);
remove_ie!(
    /// Remove FAR (type 16, Table 7.5.4.7-1).
    RemoveFar, REMOVE_FAR, far_id: FarId
);
remove_ie!(
    /// Remove URR (type 17, Table 7.5.4.8-1).
    RemoveUrr, REMOVE_URR, urr_id: UrrId
);
remove_ie!(
    /// Remove QER (type 18, Table 7.5.4.9-1).
    RemoveQer, REMOVE_QER, qer_id: QerId
);
remove_ie!(
    /// Remove BAR (type 87, clause 7.5.4).
    RemoveBar, REMOVE_BAR, bar_id: BarId
);

macro_rules! usage_report_ie {
    ($(#[$doc:meta])* $name:ident, $code:ident) => {
        grouped_ie! {
            $(#[$doc])*
            $name, $code,
            mandatory {
                /// URR ID (M).
                urr_id: UrrId,
                /// UR-SEQN (M).
                ur_seqn: UrSeqn,
                /// Usage Report Trigger (M).
                usage_report_trigger: UsageReportTrigger,
            }
            optional {
                /// Volume Measurement (C).
                volume_measurement / with_volume_measurement: VolumeMeasurement,
                /// Duration Measurement (C).
                duration_measurement / with_duration_measurement: DurationMeasurement,
            }
            repeated {}
            order { urr_id, ur_seqn, usage_report_trigger, volume_measurement, duration_measurement }
        }
    };
}

usage_report_ie!(
    /// Usage Report in a Session Report Request (type 80, Table 7.5.8.3-1).
    UsageReportSrr, USAGE_REPORT_SRR
);
usage_report_ie!(
    /// Usage Report in a Session Modification Response (type 78, Table 7.5.5.2-1).
    UsageReportSmr, USAGE_REPORT_SMR
);
usage_report_ie!(
    /// Usage Report in a Session Deletion Response (type 79, Table 7.5.7.2-1).
    UsageReportSdr, USAGE_REPORT_SDR
);

grouped_ie! {
    /// Downlink Data Report (type 83, Table 7.5.8.2-1): the PDRs whose downlink packets the UP
    /// function buffered (Session Report Request with DLDR).
    DownlinkDataReport<'a>, DOWNLINK_DATA_REPORT,
    mandatory {}
    optional {}
    repeated {
        /// PDR IDs (M, one or more).
        pdr_ids / with_pdr_id: PdrId => Repeated<'a, PdrId>,
    }
    order { pdr_ids }
}
