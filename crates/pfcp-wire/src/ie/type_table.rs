//! The IE type table of TS 29.244 Table 8.1.2-1 (types 1..=321, as of Release 17, v17.7.1).
//!
//! Spec facts only: number, name, and whether the IE is grouped (clause 7.2.3.3 / 8.1.2).
//! Source: 3GPP TS 29.244 v17.7.1 (29244-h71) Table 8.1.2-1 and the grouped-IE tables of
//! clause 7, as extracted by open5gs's `pfcp-tlv.py` generator (`lib/pfcp/support/cache/`
//! `tlv-type-list.py` and `tlv-group-list.py`). Names are the spec's; where the spec qualifies a
//! name by the message it sits in, that context is kept in parentheses. Ten IEs that the spec
//! defines as grouped but the generator's group list misses (118, 129, 147, 216, 238, 242, 295,
//! 304, 311, 315) are marked grouped from the spec's clause 7 tables.
//!
//! Not covered: 0 (Reserved), 273 (Spare), and the types added in Release 18 and 19 (322 and
//! up), for which no extraction was available; those return `None` / `false` and are handled
//! as unknown IEs.

use super::IeType;

impl IeType {
    /// Create PDR (grouped).
    pub const CREATE_PDR: IeType = IeType(1);
    /// PDI (grouped).
    pub const PDI: IeType = IeType(2);
    /// Create FAR (grouped).
    pub const CREATE_FAR: IeType = IeType(3);
    /// Forwarding Parameters (grouped).
    pub const FORWARDING_PARAMETERS: IeType = IeType(4);
    /// Duplicating Parameters (grouped).
    pub const DUPLICATING_PARAMETERS: IeType = IeType(5);
    /// Create URR (grouped).
    pub const CREATE_URR: IeType = IeType(6);
    /// Create QER (grouped).
    pub const CREATE_QER: IeType = IeType(7);
    /// Created PDR (grouped).
    pub const CREATED_PDR: IeType = IeType(8);
    /// Update PDR (grouped).
    pub const UPDATE_PDR: IeType = IeType(9);
    /// Update FAR (grouped).
    pub const UPDATE_FAR: IeType = IeType(10);
    /// Update Forwarding Parameters (grouped).
    pub const UPDATE_FORWARDING_PARAMETERS: IeType = IeType(11);
    /// Update BAR (Session Report Response) (grouped).
    pub const UPDATE_BAR_SRR: IeType = IeType(12);
    /// Update URR (grouped).
    pub const UPDATE_URR: IeType = IeType(13);
    /// Update QER (grouped).
    pub const UPDATE_QER: IeType = IeType(14);
    /// Remove PDR (grouped).
    pub const REMOVE_PDR: IeType = IeType(15);
    /// Remove FAR (grouped).
    pub const REMOVE_FAR: IeType = IeType(16);
    /// Remove URR (grouped).
    pub const REMOVE_URR: IeType = IeType(17);
    /// Remove QER (grouped).
    pub const REMOVE_QER: IeType = IeType(18);
    /// Cause.
    pub const CAUSE: IeType = IeType(19);
    /// Source Interface.
    pub const SOURCE_INTERFACE: IeType = IeType(20);
    /// F-TEID.
    pub const F_TEID: IeType = IeType(21);
    /// Network Instance.
    pub const NETWORK_INSTANCE: IeType = IeType(22);
    /// SDF Filter.
    pub const SDF_FILTER: IeType = IeType(23);
    /// Application ID.
    pub const APPLICATION_ID: IeType = IeType(24);
    /// Gate Status.
    pub const GATE_STATUS: IeType = IeType(25);
    /// MBR.
    pub const MBR: IeType = IeType(26);
    /// GBR.
    pub const GBR: IeType = IeType(27);
    /// QER Correlation ID.
    pub const QER_CORRELATION_ID: IeType = IeType(28);
    /// Precedence.
    pub const PRECEDENCE: IeType = IeType(29);
    /// Transport Level Marking.
    pub const TRANSPORT_LEVEL_MARKING: IeType = IeType(30);
    /// Volume Threshold.
    pub const VOLUME_THRESHOLD: IeType = IeType(31);
    /// Time Threshold.
    pub const TIME_THRESHOLD: IeType = IeType(32);
    /// Monitoring Time.
    pub const MONITORING_TIME: IeType = IeType(33);
    /// Subsequent Volume Threshold.
    pub const SUBSEQUENT_VOLUME_THRESHOLD: IeType = IeType(34);
    /// Subsequent Time Threshold.
    pub const SUBSEQUENT_TIME_THRESHOLD: IeType = IeType(35);
    /// Inactivity Detection Time.
    pub const INACTIVITY_DETECTION_TIME: IeType = IeType(36);
    /// Reporting Triggers.
    pub const REPORTING_TRIGGERS: IeType = IeType(37);
    /// Redirect Information.
    pub const REDIRECT_INFORMATION: IeType = IeType(38);
    /// Report Type.
    pub const REPORT_TYPE: IeType = IeType(39);
    /// Offending IE.
    pub const OFFENDING_IE: IeType = IeType(40);
    /// Forwarding Policy.
    pub const FORWARDING_POLICY: IeType = IeType(41);
    /// Destination Interface.
    pub const DESTINATION_INTERFACE: IeType = IeType(42);
    /// UP Function Features.
    pub const UP_FUNCTION_FEATURES: IeType = IeType(43);
    /// Apply Action.
    pub const APPLY_ACTION: IeType = IeType(44);
    /// Downlink Data Service Information.
    pub const DOWNLINK_DATA_SERVICE_INFORMATION: IeType = IeType(45);
    /// Downlink Data Notification Delay.
    pub const DOWNLINK_DATA_NOTIFICATION_DELAY: IeType = IeType(46);
    /// DL Buffering Duration.
    pub const DL_BUFFERING_DURATION: IeType = IeType(47);
    /// DL Buffering Suggested Packet Count.
    pub const DL_BUFFERING_SUGGESTED_PACKET_COUNT: IeType = IeType(48);
    /// PFCPSMReq-Flags.
    pub const PFCPSMREQ_FLAGS: IeType = IeType(49);
    /// PFCPSRRsp-Flags.
    pub const PFCPSRRSP_FLAGS: IeType = IeType(50);
    /// Load Control Information (grouped).
    pub const LOAD_CONTROL_INFORMATION: IeType = IeType(51);
    /// Sequence Number.
    pub const SEQUENCE_NUMBER: IeType = IeType(52);
    /// Metric.
    pub const METRIC: IeType = IeType(53);
    /// Overload Control Information (grouped).
    pub const OVERLOAD_CONTROL_INFORMATION: IeType = IeType(54);
    /// Timer.
    pub const TIMER: IeType = IeType(55);
    /// PDR ID.
    pub const PDR_ID: IeType = IeType(56);
    /// F-SEID.
    pub const F_SEID: IeType = IeType(57);
    /// Application ID's PFDs (grouped).
    pub const APPLICATION_IDS_PFDS: IeType = IeType(58);
    /// PFD context (grouped).
    pub const PFD_CONTEXT: IeType = IeType(59);
    /// Node ID.
    pub const NODE_ID: IeType = IeType(60);
    /// PFD contents.
    pub const PFD_CONTENTS: IeType = IeType(61);
    /// Measurement Method.
    pub const MEASUREMENT_METHOD: IeType = IeType(62);
    /// Usage Report Trigger.
    pub const USAGE_REPORT_TRIGGER: IeType = IeType(63);
    /// Measurement Period.
    pub const MEASUREMENT_PERIOD: IeType = IeType(64);
    /// FQ-CSID.
    pub const FQ_CSID: IeType = IeType(65);
    /// Volume Measurement.
    pub const VOLUME_MEASUREMENT: IeType = IeType(66);
    /// Duration Measurement.
    pub const DURATION_MEASUREMENT: IeType = IeType(67);
    /// Application Detection Information (grouped).
    pub const APPLICATION_DETECTION_INFORMATION: IeType = IeType(68);
    /// Time of First Packet.
    pub const TIME_OF_FIRST_PACKET: IeType = IeType(69);
    /// Time of Last Packet.
    pub const TIME_OF_LAST_PACKET: IeType = IeType(70);
    /// Quota Holding Time.
    pub const QUOTA_HOLDING_TIME: IeType = IeType(71);
    /// Dropped DL Traffic Threshold.
    pub const DROPPED_DL_TRAFFIC_THRESHOLD: IeType = IeType(72);
    /// Volume Quota.
    pub const VOLUME_QUOTA: IeType = IeType(73);
    /// Time Quota.
    pub const TIME_QUOTA: IeType = IeType(74);
    /// Start Time.
    pub const START_TIME: IeType = IeType(75);
    /// End Time.
    pub const END_TIME: IeType = IeType(76);
    /// Query URR (grouped).
    pub const QUERY_URR: IeType = IeType(77);
    /// Usage Report (Session Modification Response) (grouped).
    pub const USAGE_REPORT_SMR: IeType = IeType(78);
    /// Usage Report (Session Deletion Response) (grouped).
    pub const USAGE_REPORT_SDR: IeType = IeType(79);
    /// Usage Report (Session Report Request) (grouped).
    pub const USAGE_REPORT_SRR: IeType = IeType(80);
    /// URR ID.
    pub const URR_ID: IeType = IeType(81);
    /// Linked URR ID.
    pub const LINKED_URR_ID: IeType = IeType(82);
    /// Downlink Data Report (grouped).
    pub const DOWNLINK_DATA_REPORT: IeType = IeType(83);
    /// Outer Header Creation.
    pub const OUTER_HEADER_CREATION: IeType = IeType(84);
    /// Create BAR (grouped).
    pub const CREATE_BAR: IeType = IeType(85);
    /// Update BAR (Session Modification Request) (grouped).
    pub const UPDATE_BAR_SMR: IeType = IeType(86);
    /// Remove BAR (grouped).
    pub const REMOVE_BAR: IeType = IeType(87);
    /// BAR ID.
    pub const BAR_ID: IeType = IeType(88);
    /// CP Function Features.
    pub const CP_FUNCTION_FEATURES: IeType = IeType(89);
    /// Usage Information.
    pub const USAGE_INFORMATION: IeType = IeType(90);
    /// Application Instance ID.
    pub const APPLICATION_INSTANCE_ID: IeType = IeType(91);
    /// Flow Information.
    pub const FLOW_INFORMATION: IeType = IeType(92);
    /// UE IP Address.
    pub const UE_IP_ADDRESS: IeType = IeType(93);
    /// Packet Rate.
    pub const PACKET_RATE: IeType = IeType(94);
    /// Outer Header Removal.
    pub const OUTER_HEADER_REMOVAL: IeType = IeType(95);
    /// Recovery Time Stamp.
    pub const RECOVERY_TIME_STAMP: IeType = IeType(96);
    /// DL Flow Level Marking.
    pub const DL_FLOW_LEVEL_MARKING: IeType = IeType(97);
    /// Header Enrichment.
    pub const HEADER_ENRICHMENT: IeType = IeType(98);
    /// Error Indication Report (grouped).
    pub const ERROR_INDICATION_REPORT: IeType = IeType(99);
    /// Measurement Information.
    pub const MEASUREMENT_INFORMATION: IeType = IeType(100);
    /// Node Report Type.
    pub const NODE_REPORT_TYPE: IeType = IeType(101);
    /// User Plane Path Failure Report (grouped).
    pub const USER_PLANE_PATH_FAILURE_REPORT: IeType = IeType(102);
    /// Remote GTP-U Peer.
    pub const REMOTE_GTP_U_PEER: IeType = IeType(103);
    /// UR-SEQN.
    pub const UR_SEQN: IeType = IeType(104);
    /// Update Duplicating Parameters (grouped).
    pub const UPDATE_DUPLICATING_PARAMETERS: IeType = IeType(105);
    /// Activate Predefined Rules.
    pub const ACTIVATE_PREDEFINED_RULES: IeType = IeType(106);
    /// Deactivate Predefined Rules.
    pub const DEACTIVATE_PREDEFINED_RULES: IeType = IeType(107);
    /// FAR ID.
    pub const FAR_ID: IeType = IeType(108);
    /// QER ID.
    pub const QER_ID: IeType = IeType(109);
    /// OCI Flags.
    pub const OCI_FLAGS: IeType = IeType(110);
    /// PFCP Association Release Request.
    pub const PFCP_ASSOCIATION_RELEASE_REQUEST: IeType = IeType(111);
    /// Graceful Release Period.
    pub const GRACEFUL_RELEASE_PERIOD: IeType = IeType(112);
    /// PDN Type.
    pub const PDN_TYPE: IeType = IeType(113);
    /// Failed Rule ID.
    pub const FAILED_RULE_ID: IeType = IeType(114);
    /// Time Quota Mechanism.
    pub const TIME_QUOTA_MECHANISM: IeType = IeType(115);
    /// User Plane IP Resource Information.
    pub const USER_PLANE_IP_RESOURCE_INFORMATION: IeType = IeType(116);
    /// User Plane Inactivity Timer.
    pub const USER_PLANE_INACTIVITY_TIMER: IeType = IeType(117);
    /// Aggregated URRs (grouped).
    pub const AGGREGATED_URRS: IeType = IeType(118);
    /// Multiplier.
    pub const MULTIPLIER: IeType = IeType(119);
    /// Aggregated URR ID.
    pub const AGGREGATED_URR_ID: IeType = IeType(120);
    /// Subsequent Volume Quota.
    pub const SUBSEQUENT_VOLUME_QUOTA: IeType = IeType(121);
    /// Subsequent Time Quota.
    pub const SUBSEQUENT_TIME_QUOTA: IeType = IeType(122);
    /// RQI.
    pub const RQI: IeType = IeType(123);
    /// QFI.
    pub const QFI: IeType = IeType(124);
    /// Query URR Reference.
    pub const QUERY_URR_REFERENCE: IeType = IeType(125);
    /// Additional Usage Reports Information.
    pub const ADDITIONAL_USAGE_REPORTS_INFORMATION: IeType = IeType(126);
    /// Create Traffic Endpoint (grouped).
    pub const CREATE_TRAFFIC_ENDPOINT: IeType = IeType(127);
    /// Created Traffic Endpoint (grouped).
    pub const CREATED_TRAFFIC_ENDPOINT: IeType = IeType(128);
    /// Update Traffic Endpoint (grouped).
    pub const UPDATE_TRAFFIC_ENDPOINT: IeType = IeType(129);
    /// Remove Traffic Endpoint (grouped).
    pub const REMOVE_TRAFFIC_ENDPOINT: IeType = IeType(130);
    /// Traffic Endpoint ID.
    pub const TRAFFIC_ENDPOINT_ID: IeType = IeType(131);
    /// Ethernet Packet Filter (grouped).
    pub const ETHERNET_PACKET_FILTER: IeType = IeType(132);
    /// MAC address.
    pub const MAC_ADDRESS: IeType = IeType(133);
    /// C-TAG.
    pub const C_TAG: IeType = IeType(134);
    /// S-TAG.
    pub const S_TAG: IeType = IeType(135);
    /// Ethertype.
    pub const ETHERTYPE: IeType = IeType(136);
    /// Proxying.
    pub const PROXYING: IeType = IeType(137);
    /// Ethernet Filter ID.
    pub const ETHERNET_FILTER_ID: IeType = IeType(138);
    /// Ethernet Filter Properties.
    pub const ETHERNET_FILTER_PROPERTIES: IeType = IeType(139);
    /// Suggested Buffering Packets Count.
    pub const SUGGESTED_BUFFERING_PACKETS_COUNT: IeType = IeType(140);
    /// User ID.
    pub const USER_ID: IeType = IeType(141);
    /// Ethernet PDU Session Information.
    pub const ETHERNET_PDU_SESSION_INFORMATION: IeType = IeType(142);
    /// Ethernet Traffic Information (grouped).
    pub const ETHERNET_TRAFFIC_INFORMATION: IeType = IeType(143);
    /// MAC Addresses Detected.
    pub const MAC_ADDRESSES_DETECTED: IeType = IeType(144);
    /// MAC Addresses Removed.
    pub const MAC_ADDRESSES_REMOVED: IeType = IeType(145);
    /// Ethernet Inactivity Timer.
    pub const ETHERNET_INACTIVITY_TIMER: IeType = IeType(146);
    /// Additional Monitoring Time (grouped).
    pub const ADDITIONAL_MONITORING_TIME: IeType = IeType(147);
    /// Event Quota.
    pub const EVENT_QUOTA: IeType = IeType(148);
    /// Event Threshold.
    pub const EVENT_THRESHOLD: IeType = IeType(149);
    /// Subsequent Event Quota.
    pub const SUBSEQUENT_EVENT_QUOTA: IeType = IeType(150);
    /// Subsequent Event Threshold.
    pub const SUBSEQUENT_EVENT_THRESHOLD: IeType = IeType(151);
    /// Trace Information.
    pub const TRACE_INFORMATION: IeType = IeType(152);
    /// Framed-Route.
    pub const FRAMED_ROUTE: IeType = IeType(153);
    /// Framed-Routing.
    pub const FRAMED_ROUTING: IeType = IeType(154);
    /// Framed-IPv6-Route.
    pub const FRAMED_IPV6_ROUTE: IeType = IeType(155);
    /// Time Stamp.
    pub const TIME_STAMP: IeType = IeType(156);
    /// Averaging Window.
    pub const AVERAGING_WINDOW: IeType = IeType(157);
    /// Paging Policy Indicator.
    pub const PAGING_POLICY_INDICATOR: IeType = IeType(158);
    /// APN/DNN.
    pub const APN_DNN: IeType = IeType(159);
    /// 3GPP Interface Type.
    pub const TGPP_INTERFACE_TYPE: IeType = IeType(160);
    /// PFCPSRReq-Flags.
    pub const PFCPSRREQ_FLAGS: IeType = IeType(161);
    /// PFCPAUReq-Flags.
    pub const PFCPAUREQ_FLAGS: IeType = IeType(162);
    /// Activation Time.
    pub const ACTIVATION_TIME: IeType = IeType(163);
    /// Deactivation Time.
    pub const DEACTIVATION_TIME: IeType = IeType(164);
    /// Create MAR (grouped).
    pub const CREATE_MAR: IeType = IeType(165);
    /// 3GPP Access Forwarding Action Information (grouped).
    pub const TGPP_ACCESS_FORWARDING_ACTION_INFORMATION: IeType = IeType(166);
    /// Non-3GPP Access Forwarding Action Information (grouped).
    pub const NON_3GPP_ACCESS_FORWARDING_ACTION_INFORMATION: IeType = IeType(167);
    /// Remove MAR (grouped).
    pub const REMOVE_MAR: IeType = IeType(168);
    /// Update MAR (grouped).
    pub const UPDATE_MAR: IeType = IeType(169);
    /// MAR ID.
    pub const MAR_ID: IeType = IeType(170);
    /// Steering Functionality.
    pub const STEERING_FUNCTIONALITY: IeType = IeType(171);
    /// Steering Mode.
    pub const STEERING_MODE: IeType = IeType(172);
    /// Weight.
    pub const WEIGHT: IeType = IeType(173);
    /// Priority.
    pub const PRIORITY: IeType = IeType(174);
    /// Update 3GPP Access Forwarding Action Information (grouped).
    pub const UPDATE_3GPP_ACCESS_FORWARDING_ACTION_INFORMATION: IeType = IeType(175);
    /// Update Non-3GPP Access Forwarding Action Information (grouped).
    pub const UPDATE_NON_3GPP_ACCESS_FORWARDING_ACTION_INFORMATION: IeType = IeType(176);
    /// UE IP address Pool Identity.
    pub const UE_IP_ADDRESS_POOL_IDENTITY: IeType = IeType(177);
    /// Alternative SMF IP Address.
    pub const ALTERNATIVE_SMF_IP_ADDRESS: IeType = IeType(178);
    /// Packet Replication and Detection Carry-On Information.
    pub const PACKET_REPLICATION_AND_DETECTION_CARRY_ON_INFORMATION: IeType = IeType(179);
    /// SMF Set ID.
    pub const SMF_SET_ID: IeType = IeType(180);
    /// Quota Validity Time.
    pub const QUOTA_VALIDITY_TIME: IeType = IeType(181);
    /// Number of Reports.
    pub const NUMBER_OF_REPORTS: IeType = IeType(182);
    /// PFCP Session Retention Information (Association Setup Request) (grouped).
    pub const PFCP_SESSION_RETENTION_INFORMATION: IeType = IeType(183);
    /// PFCPASRsp-Flags.
    pub const PFCPASRSP_FLAGS: IeType = IeType(184);
    /// CP PFCP Entity IP Address.
    pub const CP_PFCP_ENTITY_IP_ADDRESS: IeType = IeType(185);
    /// PFCPSEReq-Flags.
    pub const PFCPSEREQ_FLAGS: IeType = IeType(186);
    /// User Plane Path Recovery Report (grouped).
    pub const USER_PLANE_PATH_RECOVERY_REPORT: IeType = IeType(187);
    /// IP Multicast Addressing Info (Session Establishment Request) (grouped).
    pub const IP_MULTICAST_ADDRESSING_INFO: IeType = IeType(188);
    /// Join IP Multicast Information (Usage Report) (grouped).
    pub const JOIN_IP_MULTICAST_INFORMATION: IeType = IeType(189);
    /// Leave IP Multicast Information (Usage Report) (grouped).
    pub const LEAVE_IP_MULTICAST_INFORMATION: IeType = IeType(190);
    /// IP Multicast Address.
    pub const IP_MULTICAST_ADDRESS: IeType = IeType(191);
    /// Source IP Address.
    pub const SOURCE_IP_ADDRESS: IeType = IeType(192);
    /// Packet Rate Status.
    pub const PACKET_RATE_STATUS: IeType = IeType(193);
    /// Create Bridge Info for TSC.
    pub const CREATE_BRIDGE_INFO_FOR_TSC: IeType = IeType(194);
    /// Created Bridge Info for TSC (grouped).
    pub const CREATED_BRIDGE_INFO_FOR_TSC: IeType = IeType(195);
    /// DS-TT Port Number.
    pub const DS_TT_PORT_NUMBER: IeType = IeType(196);
    /// NW-TT Port Number.
    pub const NW_TT_PORT_NUMBER: IeType = IeType(197);
    /// 5GS User Plane Node ID.
    pub const FIVEGS_USER_PLANE_NODE_ID: IeType = IeType(198);
    /// TSC Management Information (Session Modification Request) (grouped).
    pub const TSC_MANAGEMENT_INFORMATION_SMREQ: IeType = IeType(199);
    /// TSC Management Information (Session Modification Response) (grouped).
    pub const TSC_MANAGEMENT_INFORMATION_SMRSP: IeType = IeType(200);
    /// TSC Management Information (Session Report Request) (grouped).
    pub const TSC_MANAGEMENT_INFORMATION_SRR: IeType = IeType(201);
    /// Port Management Information Container.
    pub const PORT_MANAGEMENT_INFORMATION_CONTAINER: IeType = IeType(202);
    /// Clock Drift Control Information (grouped).
    pub const CLOCK_DRIFT_CONTROL_INFORMATION: IeType = IeType(203);
    /// Requested Clock Drift Information.
    pub const REQUESTED_CLOCK_DRIFT_INFORMATION: IeType = IeType(204);
    /// Clock Drift Report (grouped).
    pub const CLOCK_DRIFT_REPORT: IeType = IeType(205);
    /// Time Domain Number.
    pub const TIME_DOMAIN_NUMBER: IeType = IeType(206);
    /// Time Offset Threshold.
    pub const TIME_OFFSET_THRESHOLD: IeType = IeType(207);
    /// Cumulative rateRatio Threshold.
    pub const CUMULATIVE_RATERATIO_THRESHOLD: IeType = IeType(208);
    /// Time Offset Measurement.
    pub const TIME_OFFSET_MEASUREMENT: IeType = IeType(209);
    /// Cumulative rateRatio Measurement.
    pub const CUMULATIVE_RATERATIO_MEASUREMENT: IeType = IeType(210);
    /// Remove SRR (grouped).
    pub const REMOVE_SRR: IeType = IeType(211);
    /// Create SRR (grouped).
    pub const CREATE_SRR: IeType = IeType(212);
    /// Update SRR (grouped).
    pub const UPDATE_SRR: IeType = IeType(213);
    /// Session Report (grouped).
    pub const SESSION_REPORT: IeType = IeType(214);
    /// SRR ID.
    pub const SRR_ID: IeType = IeType(215);
    /// Access Availability Control Information (grouped).
    pub const ACCESS_AVAILABILITY_CONTROL_INFORMATION: IeType = IeType(216);
    /// Requested Access Availability Information.
    pub const REQUESTED_ACCESS_AVAILABILITY_INFORMATION: IeType = IeType(217);
    /// Access Availability Report (grouped).
    pub const ACCESS_AVAILABILITY_REPORT: IeType = IeType(218);
    /// Access Availability Information.
    pub const ACCESS_AVAILABILITY_INFORMATION: IeType = IeType(219);
    /// Provide ATSSS Control Information (grouped).
    pub const PROVIDE_ATSSS_CONTROL_INFORMATION: IeType = IeType(220);
    /// ATSSS Control Parameters (grouped).
    pub const ATSSS_CONTROL_PARAMETERS: IeType = IeType(221);
    /// MPTCP Control Information.
    pub const MPTCP_CONTROL_INFORMATION: IeType = IeType(222);
    /// ATSSS-LL Control Information.
    pub const ATSSS_LL_CONTROL_INFORMATION: IeType = IeType(223);
    /// PMF Control Information.
    pub const PMF_CONTROL_INFORMATION: IeType = IeType(224);
    /// MPTCP Parameters (grouped).
    pub const MPTCP_PARAMETERS: IeType = IeType(225);
    /// ATSSS-LL Parameters (grouped).
    pub const ATSSS_LL_PARAMETERS: IeType = IeType(226);
    /// PMF Parameters (grouped).
    pub const PMF_PARAMETERS: IeType = IeType(227);
    /// MPTCP Address Information.
    pub const MPTCP_ADDRESS_INFORMATION: IeType = IeType(228);
    /// UE Link-Specific IP Address.
    pub const UE_LINK_SPECIFIC_IP_ADDRESS: IeType = IeType(229);
    /// PMF Address Information.
    pub const PMF_ADDRESS_INFORMATION: IeType = IeType(230);
    /// ATSSS-LL Information.
    pub const ATSSS_LL_INFORMATION: IeType = IeType(231);
    /// Data Network Access Identifier.
    pub const DATA_NETWORK_ACCESS_IDENTIFIER: IeType = IeType(232);
    /// UE IP address Pool Information (grouped).
    pub const UE_IP_ADDRESS_POOL_INFORMATION: IeType = IeType(233);
    /// Average Packet Delay.
    pub const AVERAGE_PACKET_DELAY: IeType = IeType(234);
    /// Minimum Packet Delay.
    pub const MINIMUM_PACKET_DELAY: IeType = IeType(235);
    /// Maximum Packet Delay.
    pub const MAXIMUM_PACKET_DELAY: IeType = IeType(236);
    /// QoS Report Trigger.
    pub const QOS_REPORT_TRIGGER: IeType = IeType(237);
    /// GTP-U Path QoS Control Information (grouped).
    pub const GTP_U_PATH_QOS_CONTROL_INFORMATION: IeType = IeType(238);
    /// GTP-U Path QoS Report (Node Report Request) (grouped).
    pub const GTP_U_PATH_QOS_REPORT: IeType = IeType(239);
    /// QoS Information in GTP-U Path QoS Report (grouped).
    pub const QOS_INFORMATION_IN_GTP_U_PATH_QOS_REPORT: IeType = IeType(240);
    /// GTP-U Path Interface Type.
    pub const GTP_U_PATH_INTERFACE_TYPE: IeType = IeType(241);
    /// QoS Monitoring per QoS flow Control Information (grouped).
    pub const QOS_MONITORING_PER_QOS_FLOW_CONTROL_INFORMATION: IeType = IeType(242);
    /// Requested QoS Monitoring.
    pub const REQUESTED_QOS_MONITORING: IeType = IeType(243);
    /// Reporting Frequency.
    pub const REPORTING_FREQUENCY: IeType = IeType(244);
    /// Packet Delay Thresholds.
    pub const PACKET_DELAY_THRESHOLDS: IeType = IeType(245);
    /// Minimum Wait Time.
    pub const MINIMUM_WAIT_TIME: IeType = IeType(246);
    /// QoS Monitoring Report (grouped).
    pub const QOS_MONITORING_REPORT: IeType = IeType(247);
    /// QoS Monitoring Measurement.
    pub const QOS_MONITORING_MEASUREMENT: IeType = IeType(248);
    /// MT-EDT Control Information.
    pub const MT_EDT_CONTROL_INFORMATION: IeType = IeType(249);
    /// DL Data Packets Size.
    pub const DL_DATA_PACKETS_SIZE: IeType = IeType(250);
    /// QER Control Indications.
    pub const QER_CONTROL_INDICATIONS: IeType = IeType(251);
    /// Packet Rate Status Report (grouped).
    pub const PACKET_RATE_STATUS_REPORT: IeType = IeType(252);
    /// NF Instance ID.
    pub const NF_INSTANCE_ID: IeType = IeType(253);
    /// Ethernet Context Information (grouped).
    pub const ETHERNET_CONTEXT_INFORMATION: IeType = IeType(254);
    /// Redundant Transmission Parameters (grouped).
    pub const REDUNDANT_TRANSMISSION_PARAMETERS: IeType = IeType(255);
    /// Updated PDR (grouped).
    pub const UPDATED_PDR: IeType = IeType(256);
    /// S-NSSAI.
    pub const S_NSSAI: IeType = IeType(257);
    /// IP version.
    pub const IP_VERSION: IeType = IeType(258);
    /// PFCPASReq-Flags.
    pub const PFCPASREQ_FLAGS: IeType = IeType(259);
    /// Data Status.
    pub const DATA_STATUS: IeType = IeType(260);
    /// Provide RDS Configuration Information (grouped).
    pub const PROVIDE_RDS_CONFIGURATION_INFORMATION: IeType = IeType(261);
    /// RDS Configuration Information.
    pub const RDS_CONFIGURATION_INFORMATION: IeType = IeType(262);
    /// Query Packet Rate Status (Session Modification Request) (grouped).
    pub const QUERY_PACKET_RATE_STATUS: IeType = IeType(263);
    /// Packet Rate Status Report (Session Modification Response) (grouped).
    pub const PACKET_RATE_STATUS_REPORT_SMR: IeType = IeType(264);
    /// MPTCP Applicable Indication.
    pub const MPTCP_APPLICABLE_INDICATION: IeType = IeType(265);
    /// Bridge Management Information Container.
    pub const BRIDGE_MANAGEMENT_INFORMATION_CONTAINER: IeType = IeType(266);
    /// UE IP Address Usage Information (grouped).
    pub const UE_IP_ADDRESS_USAGE_INFORMATION: IeType = IeType(267);
    /// Number of UE IP Addresses.
    pub const NUMBER_OF_UE_IP_ADDRESSES: IeType = IeType(268);
    /// Validity Timer.
    pub const VALIDITY_TIMER: IeType = IeType(269);
    /// Redundant Transmission Forwarding Parameters (grouped).
    pub const REDUNDANT_TRANSMISSION_FORWARDING_PARAMETERS: IeType = IeType(270);
    /// Transport Delay Reporting (grouped).
    pub const TRANSPORT_DELAY_REPORTING: IeType = IeType(271);
    /// Partial Failure Information (grouped).
    pub const PARTIAL_FAILURE_INFORMATION: IeType = IeType(272);
    /// Offending IE Information.
    pub const OFFENDING_IE_INFORMATION: IeType = IeType(274);
    /// RAT Type.
    pub const RAT_TYPE: IeType = IeType(275);
    /// L2TP Tunnel Information (grouped).
    pub const L2TP_TUNNEL_INFORMATION: IeType = IeType(276);
    /// L2TP Session Information (grouped).
    pub const L2TP_SESSION_INFORMATION: IeType = IeType(277);
    /// L2TP User Authentication.
    pub const L2TP_USER_AUTHENTICATION: IeType = IeType(278);
    /// Created L2TP Session (grouped).
    pub const CREATED_L2TP_SESSION: IeType = IeType(279);
    /// LNS Address.
    pub const LNS_ADDRESS: IeType = IeType(280);
    /// Tunnel Preference.
    pub const TUNNEL_PREFERENCE: IeType = IeType(281);
    /// Calling Number.
    pub const CALLING_NUMBER: IeType = IeType(282);
    /// Called Number.
    pub const CALLED_NUMBER: IeType = IeType(283);
    /// L2TP Session Indications.
    pub const L2TP_SESSION_INDICATIONS: IeType = IeType(284);
    /// DNS Server Address.
    pub const DNS_SERVER_ADDRESS: IeType = IeType(285);
    /// NBNS Server Address.
    pub const NBNS_SERVER_ADDRESS: IeType = IeType(286);
    /// Maximum Receive Unit.
    pub const MAXIMUM_RECEIVE_UNIT: IeType = IeType(287);
    /// Thresholds.
    pub const THRESHOLDS: IeType = IeType(288);
    /// Steering Mode Indicator.
    pub const STEERING_MODE_INDICATOR: IeType = IeType(289);
    /// PFCP Session Change Info (grouped).
    pub const PFCP_SESSION_CHANGE_INFO: IeType = IeType(290);
    /// Group ID.
    pub const GROUP_ID: IeType = IeType(291);
    /// CP IP Address.
    pub const CP_IP_ADDRESS: IeType = IeType(292);
    /// IP Address and Port number Replacement.
    pub const IP_ADDRESS_AND_PORT_NUMBER_REPLACEMENT: IeType = IeType(293);
    /// DNS Query Filter.
    pub const DNS_QUERY_FILTER: IeType = IeType(294);
    /// Direct Reporting Information (grouped).
    pub const DIRECT_REPORTING_INFORMATION: IeType = IeType(295);
    /// Event Notification URI.
    pub const EVENT_NOTIFICATION_URI: IeType = IeType(296);
    /// Notification Correlation ID.
    pub const NOTIFICATION_CORRELATION_ID: IeType = IeType(297);
    /// Reporting Flags.
    pub const REPORTING_FLAGS: IeType = IeType(298);
    /// Predefined Rules Name.
    pub const PREDEFINED_RULES_NAME: IeType = IeType(299);
    /// MBS Session N4mb Control Information (grouped).
    pub const MBS_SESSION_N4MB_CONTROL_INFORMATION: IeType = IeType(300);
    /// MBS Multicast Parameters (grouped).
    pub const MBS_MULTICAST_PARAMETERS: IeType = IeType(301);
    /// Add MBS Unicast Parameters (grouped).
    pub const ADD_MBS_UNICAST_PARAMETERS: IeType = IeType(302);
    /// MBS Session N4mb Information (grouped).
    pub const MBS_SESSION_N4MB_INFORMATION: IeType = IeType(303);
    /// Remove MBS Unicast Parameters (grouped).
    pub const REMOVE_MBS_UNICAST_PARAMETERS: IeType = IeType(304);
    /// MBS Session Identifier.
    pub const MBS_SESSION_IDENTIFIER: IeType = IeType(305);
    /// Multicast Transport Information.
    pub const MULTICAST_TRANSPORT_INFORMATION: IeType = IeType(306);
    /// MBSN4mbReq-Flags.
    pub const MBSN4MBREQ_FLAGS: IeType = IeType(307);
    /// Local Ingress Tunnel.
    pub const LOCAL_INGRESS_TUNNEL: IeType = IeType(308);
    /// MBS Unicast Parameters ID.
    pub const MBS_UNICAST_PARAMETERS_ID: IeType = IeType(309);
    /// MBS Session N4 Control Information (grouped).
    pub const MBS_SESSION_N4_CONTROL_INFORMATION: IeType = IeType(310);
    /// MBS Session N4 Information (grouped).
    pub const MBS_SESSION_N4_INFORMATION: IeType = IeType(311);
    /// MBSN4Resp-Flags.
    pub const MBSN4RESP_FLAGS: IeType = IeType(312);
    /// Tunnel Password.
    pub const TUNNEL_PASSWORD: IeType = IeType(313);
    /// Area Session ID.
    pub const AREA_SESSION_ID: IeType = IeType(314);
    /// Peer UP Restart Report (grouped).
    pub const PEER_UP_RESTART_REPORT: IeType = IeType(315);
    /// DSCP to PPI Control Information (grouped).
    pub const DSCP_TO_PPI_CONTROL_INFORMATION: IeType = IeType(316);
    /// DSCP to PPI Mapping Information.
    pub const DSCP_TO_PPI_MAPPING_INFORMATION: IeType = IeType(317);
    /// PFCPSDRsp-Flags.
    pub const PFCPSDRSP_FLAGS: IeType = IeType(318);
    /// QER Indications.
    pub const QER_INDICATIONS: IeType = IeType(319);
    /// Vendor-Specific Node Report Type.
    pub const VENDOR_SPECIFIC_NODE_REPORT_TYPE: IeType = IeType(320);
    /// Configured Time Domain.
    pub const CONFIGURED_TIME_DOMAIN: IeType = IeType(321);
}

/// Spec name of an IE type, `None` for types the table does not define.
pub(crate) const fn name(code: u16) -> Option<&'static str> {
    match code {
        1 => Some("Create PDR"),
        2 => Some("PDI"),
        3 => Some("Create FAR"),
        4 => Some("Forwarding Parameters"),
        5 => Some("Duplicating Parameters"),
        6 => Some("Create URR"),
        7 => Some("Create QER"),
        8 => Some("Created PDR"),
        9 => Some("Update PDR"),
        10 => Some("Update FAR"),
        11 => Some("Update Forwarding Parameters"),
        12 => Some("Update BAR (Session Report Response)"),
        13 => Some("Update URR"),
        14 => Some("Update QER"),
        15 => Some("Remove PDR"),
        16 => Some("Remove FAR"),
        17 => Some("Remove URR"),
        18 => Some("Remove QER"),
        19 => Some("Cause"),
        20 => Some("Source Interface"),
        21 => Some("F-TEID"),
        22 => Some("Network Instance"),
        23 => Some("SDF Filter"),
        24 => Some("Application ID"),
        25 => Some("Gate Status"),
        26 => Some("MBR"),
        27 => Some("GBR"),
        28 => Some("QER Correlation ID"),
        29 => Some("Precedence"),
        30 => Some("Transport Level Marking"),
        31 => Some("Volume Threshold"),
        32 => Some("Time Threshold"),
        33 => Some("Monitoring Time"),
        34 => Some("Subsequent Volume Threshold"),
        35 => Some("Subsequent Time Threshold"),
        36 => Some("Inactivity Detection Time"),
        37 => Some("Reporting Triggers"),
        38 => Some("Redirect Information"),
        39 => Some("Report Type"),
        40 => Some("Offending IE"),
        41 => Some("Forwarding Policy"),
        42 => Some("Destination Interface"),
        43 => Some("UP Function Features"),
        44 => Some("Apply Action"),
        45 => Some("Downlink Data Service Information"),
        46 => Some("Downlink Data Notification Delay"),
        47 => Some("DL Buffering Duration"),
        48 => Some("DL Buffering Suggested Packet Count"),
        49 => Some("PFCPSMReq-Flags"),
        50 => Some("PFCPSRRsp-Flags"),
        51 => Some("Load Control Information"),
        52 => Some("Sequence Number"),
        53 => Some("Metric"),
        54 => Some("Overload Control Information"),
        55 => Some("Timer"),
        56 => Some("PDR ID"),
        57 => Some("F-SEID"),
        58 => Some("Application ID's PFDs"),
        59 => Some("PFD context"),
        60 => Some("Node ID"),
        61 => Some("PFD contents"),
        62 => Some("Measurement Method"),
        63 => Some("Usage Report Trigger"),
        64 => Some("Measurement Period"),
        65 => Some("FQ-CSID"),
        66 => Some("Volume Measurement"),
        67 => Some("Duration Measurement"),
        68 => Some("Application Detection Information"),
        69 => Some("Time of First Packet"),
        70 => Some("Time of Last Packet"),
        71 => Some("Quota Holding Time"),
        72 => Some("Dropped DL Traffic Threshold"),
        73 => Some("Volume Quota"),
        74 => Some("Time Quota"),
        75 => Some("Start Time"),
        76 => Some("End Time"),
        77 => Some("Query URR"),
        78 => Some("Usage Report (Session Modification Response)"),
        79 => Some("Usage Report (Session Deletion Response)"),
        80 => Some("Usage Report (Session Report Request)"),
        81 => Some("URR ID"),
        82 => Some("Linked URR ID"),
        83 => Some("Downlink Data Report"),
        84 => Some("Outer Header Creation"),
        85 => Some("Create BAR"),
        86 => Some("Update BAR (Session Modification Request)"),
        87 => Some("Remove BAR"),
        88 => Some("BAR ID"),
        89 => Some("CP Function Features"),
        90 => Some("Usage Information"),
        91 => Some("Application Instance ID"),
        92 => Some("Flow Information"),
        93 => Some("UE IP Address"),
        94 => Some("Packet Rate"),
        95 => Some("Outer Header Removal"),
        96 => Some("Recovery Time Stamp"),
        97 => Some("DL Flow Level Marking"),
        98 => Some("Header Enrichment"),
        99 => Some("Error Indication Report"),
        100 => Some("Measurement Information"),
        101 => Some("Node Report Type"),
        102 => Some("User Plane Path Failure Report"),
        103 => Some("Remote GTP-U Peer"),
        104 => Some("UR-SEQN"),
        105 => Some("Update Duplicating Parameters"),
        106 => Some("Activate Predefined Rules"),
        107 => Some("Deactivate Predefined Rules"),
        108 => Some("FAR ID"),
        109 => Some("QER ID"),
        110 => Some("OCI Flags"),
        111 => Some("PFCP Association Release Request"),
        112 => Some("Graceful Release Period"),
        113 => Some("PDN Type"),
        114 => Some("Failed Rule ID"),
        115 => Some("Time Quota Mechanism"),
        116 => Some("User Plane IP Resource Information"),
        117 => Some("User Plane Inactivity Timer"),
        118 => Some("Aggregated URRs"),
        119 => Some("Multiplier"),
        120 => Some("Aggregated URR ID"),
        121 => Some("Subsequent Volume Quota"),
        122 => Some("Subsequent Time Quota"),
        123 => Some("RQI"),
        124 => Some("QFI"),
        125 => Some("Query URR Reference"),
        126 => Some("Additional Usage Reports Information"),
        127 => Some("Create Traffic Endpoint"),
        128 => Some("Created Traffic Endpoint"),
        129 => Some("Update Traffic Endpoint"),
        130 => Some("Remove Traffic Endpoint"),
        131 => Some("Traffic Endpoint ID"),
        132 => Some("Ethernet Packet Filter"),
        133 => Some("MAC address"),
        134 => Some("C-TAG"),
        135 => Some("S-TAG"),
        136 => Some("Ethertype"),
        137 => Some("Proxying"),
        138 => Some("Ethernet Filter ID"),
        139 => Some("Ethernet Filter Properties"),
        140 => Some("Suggested Buffering Packets Count"),
        141 => Some("User ID"),
        142 => Some("Ethernet PDU Session Information"),
        143 => Some("Ethernet Traffic Information"),
        144 => Some("MAC Addresses Detected"),
        145 => Some("MAC Addresses Removed"),
        146 => Some("Ethernet Inactivity Timer"),
        147 => Some("Additional Monitoring Time"),
        148 => Some("Event Quota"),
        149 => Some("Event Threshold"),
        150 => Some("Subsequent Event Quota"),
        151 => Some("Subsequent Event Threshold"),
        152 => Some("Trace Information"),
        153 => Some("Framed-Route"),
        154 => Some("Framed-Routing"),
        155 => Some("Framed-IPv6-Route"),
        156 => Some("Time Stamp"),
        157 => Some("Averaging Window"),
        158 => Some("Paging Policy Indicator"),
        159 => Some("APN/DNN"),
        160 => Some("3GPP Interface Type"),
        161 => Some("PFCPSRReq-Flags"),
        162 => Some("PFCPAUReq-Flags"),
        163 => Some("Activation Time"),
        164 => Some("Deactivation Time"),
        165 => Some("Create MAR"),
        166 => Some("3GPP Access Forwarding Action Information"),
        167 => Some("Non-3GPP Access Forwarding Action Information"),
        168 => Some("Remove MAR"),
        169 => Some("Update MAR"),
        170 => Some("MAR ID"),
        171 => Some("Steering Functionality"),
        172 => Some("Steering Mode"),
        173 => Some("Weight"),
        174 => Some("Priority"),
        175 => Some("Update 3GPP Access Forwarding Action Information"),
        176 => Some("Update Non-3GPP Access Forwarding Action Information"),
        177 => Some("UE IP address Pool Identity"),
        178 => Some("Alternative SMF IP Address"),
        179 => Some("Packet Replication and Detection Carry-On Information"),
        180 => Some("SMF Set ID"),
        181 => Some("Quota Validity Time"),
        182 => Some("Number of Reports"),
        183 => Some("PFCP Session Retention Information (Association Setup Request)"),
        184 => Some("PFCPASRsp-Flags"),
        185 => Some("CP PFCP Entity IP Address"),
        186 => Some("PFCPSEReq-Flags"),
        187 => Some("User Plane Path Recovery Report"),
        188 => Some("IP Multicast Addressing Info (Session Establishment Request)"),
        189 => Some("Join IP Multicast Information (Usage Report)"),
        190 => Some("Leave IP Multicast Information (Usage Report)"),
        191 => Some("IP Multicast Address"),
        192 => Some("Source IP Address"),
        193 => Some("Packet Rate Status"),
        194 => Some("Create Bridge Info for TSC"),
        195 => Some("Created Bridge Info for TSC"),
        196 => Some("DS-TT Port Number"),
        197 => Some("NW-TT Port Number"),
        198 => Some("5GS User Plane Node ID"),
        199 => Some("TSC Management Information (Session Modification Request)"),
        200 => Some("TSC Management Information (Session Modification Response)"),
        201 => Some("TSC Management Information (Session Report Request)"),
        202 => Some("Port Management Information Container"),
        203 => Some("Clock Drift Control Information"),
        204 => Some("Requested Clock Drift Information"),
        205 => Some("Clock Drift Report"),
        206 => Some("Time Domain Number"),
        207 => Some("Time Offset Threshold"),
        208 => Some("Cumulative rateRatio Threshold"),
        209 => Some("Time Offset Measurement"),
        210 => Some("Cumulative rateRatio Measurement"),
        211 => Some("Remove SRR"),
        212 => Some("Create SRR"),
        213 => Some("Update SRR"),
        214 => Some("Session Report"),
        215 => Some("SRR ID"),
        216 => Some("Access Availability Control Information"),
        217 => Some("Requested Access Availability Information"),
        218 => Some("Access Availability Report"),
        219 => Some("Access Availability Information"),
        220 => Some("Provide ATSSS Control Information"),
        221 => Some("ATSSS Control Parameters"),
        222 => Some("MPTCP Control Information"),
        223 => Some("ATSSS-LL Control Information"),
        224 => Some("PMF Control Information"),
        225 => Some("MPTCP Parameters"),
        226 => Some("ATSSS-LL Parameters"),
        227 => Some("PMF Parameters"),
        228 => Some("MPTCP Address Information"),
        229 => Some("UE Link-Specific IP Address"),
        230 => Some("PMF Address Information"),
        231 => Some("ATSSS-LL Information"),
        232 => Some("Data Network Access Identifier"),
        233 => Some("UE IP address Pool Information"),
        234 => Some("Average Packet Delay"),
        235 => Some("Minimum Packet Delay"),
        236 => Some("Maximum Packet Delay"),
        237 => Some("QoS Report Trigger"),
        238 => Some("GTP-U Path QoS Control Information"),
        239 => Some("GTP-U Path QoS Report (Node Report Request)"),
        240 => Some("QoS Information in GTP-U Path QoS Report"),
        241 => Some("GTP-U Path Interface Type"),
        242 => Some("QoS Monitoring per QoS flow Control Information"),
        243 => Some("Requested QoS Monitoring"),
        244 => Some("Reporting Frequency"),
        245 => Some("Packet Delay Thresholds"),
        246 => Some("Minimum Wait Time"),
        247 => Some("QoS Monitoring Report"),
        248 => Some("QoS Monitoring Measurement"),
        249 => Some("MT-EDT Control Information"),
        250 => Some("DL Data Packets Size"),
        251 => Some("QER Control Indications"),
        252 => Some("Packet Rate Status Report"),
        253 => Some("NF Instance ID"),
        254 => Some("Ethernet Context Information"),
        255 => Some("Redundant Transmission Parameters"),
        256 => Some("Updated PDR"),
        257 => Some("S-NSSAI"),
        258 => Some("IP version"),
        259 => Some("PFCPASReq-Flags"),
        260 => Some("Data Status"),
        261 => Some("Provide RDS Configuration Information"),
        262 => Some("RDS Configuration Information"),
        263 => Some("Query Packet Rate Status (Session Modification Request)"),
        264 => Some("Packet Rate Status Report (Session Modification Response)"),
        265 => Some("MPTCP Applicable Indication"),
        266 => Some("Bridge Management Information Container"),
        267 => Some("UE IP Address Usage Information"),
        268 => Some("Number of UE IP Addresses"),
        269 => Some("Validity Timer"),
        270 => Some("Redundant Transmission Forwarding Parameters"),
        271 => Some("Transport Delay Reporting"),
        272 => Some("Partial Failure Information"),
        274 => Some("Offending IE Information"),
        275 => Some("RAT Type"),
        276 => Some("L2TP Tunnel Information"),
        277 => Some("L2TP Session Information"),
        278 => Some("L2TP User Authentication"),
        279 => Some("Created L2TP Session"),
        280 => Some("LNS Address"),
        281 => Some("Tunnel Preference"),
        282 => Some("Calling Number"),
        283 => Some("Called Number"),
        284 => Some("L2TP Session Indications"),
        285 => Some("DNS Server Address"),
        286 => Some("NBNS Server Address"),
        287 => Some("Maximum Receive Unit"),
        288 => Some("Thresholds"),
        289 => Some("Steering Mode Indicator"),
        290 => Some("PFCP Session Change Info"),
        291 => Some("Group ID"),
        292 => Some("CP IP Address"),
        293 => Some("IP Address and Port number Replacement"),
        294 => Some("DNS Query Filter"),
        295 => Some("Direct Reporting Information"),
        296 => Some("Event Notification URI"),
        297 => Some("Notification Correlation ID"),
        298 => Some("Reporting Flags"),
        299 => Some("Predefined Rules Name"),
        300 => Some("MBS Session N4mb Control Information"),
        301 => Some("MBS Multicast Parameters"),
        302 => Some("Add MBS Unicast Parameters"),
        303 => Some("MBS Session N4mb Information"),
        304 => Some("Remove MBS Unicast Parameters"),
        305 => Some("MBS Session Identifier"),
        306 => Some("Multicast Transport Information"),
        307 => Some("MBSN4mbReq-Flags"),
        308 => Some("Local Ingress Tunnel"),
        309 => Some("MBS Unicast Parameters ID"),
        310 => Some("MBS Session N4 Control Information"),
        311 => Some("MBS Session N4 Information"),
        312 => Some("MBSN4Resp-Flags"),
        313 => Some("Tunnel Password"),
        314 => Some("Area Session ID"),
        315 => Some("Peer UP Restart Report"),
        316 => Some("DSCP to PPI Control Information"),
        317 => Some("DSCP to PPI Mapping Information"),
        318 => Some("PFCPSDRsp-Flags"),
        319 => Some("QER Indications"),
        320 => Some("Vendor-Specific Node Report Type"),
        321 => Some("Configured Time Domain"),
        _ => None,
    }
}

/// The grouped IE types of TS 29.244 (Table 8.1.2-1), ascending.
#[rustfmt::skip]
const GROUPED: [u16; 102] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
    17, 18, 51, 54, 58, 59, 68, 77, 78, 79, 80, 83, 85, 86, 87, 99,
    102, 105, 118, 127, 128, 129, 130, 132, 143, 147, 165, 166, 167, 168, 169, 175,
    176, 183, 187, 188, 189, 190, 195, 199, 200, 201, 203, 205, 211, 212, 213, 214,
    216, 218, 220, 221, 225, 226, 227, 233, 238, 239, 240, 242, 247, 252, 254, 255,
    256, 261, 263, 264, 267, 270, 271, 272, 276, 277, 279, 290, 295, 300, 301, 302,
    303, 304, 310, 311, 315, 316,
];

/// [`GROUPED`] as a bitmap (bit `code % 64` of word `code / 64`): one load and a shift per
/// lookup instead of a chain of range tests.
const GROUPED_BITS: [u64; 5] = [
    grouped_word(0),
    grouped_word(1),
    grouped_word(2),
    grouped_word(3),
    grouped_word(4),
];

/// Word `w` of [`GROUPED_BITS`] (codes `64 w .. 64 w + 63`), at compile time.
const fn grouped_word(w: u16) -> u64 {
    let mut bits = 0u64;
    let mut rest: &[u16] = &GROUPED;
    while let [code, tail @ ..] = rest {
        if *code / 64 == w {
            bits |= 1 << (*code % 64);
        }
        rest = tail;
    }
    bits
}

/// Whether the IE type is a grouped IE whose body is a list of embedded IEs.
#[inline]
pub(crate) const fn is_grouped(code: u16) -> bool {
    let word = match code / 64 {
        0 => GROUPED_BITS[0],
        1 => GROUPED_BITS[1],
        2 => GROUPED_BITS[2],
        3 => GROUPED_BITS[3],
        4 => GROUPED_BITS[4],
        _ => 0,
    };
    word & (1 << (code % 64)) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouped_bitmap_matches_the_list() {
        for code in 0..=u16::MAX {
            assert_eq!(is_grouped(code), GROUPED.contains(&code), "{code}");
        }
        assert!(GROUPED.windows(2).all(|w| w[0] < w[1]));
        assert!(GROUPED.iter().all(|&c| c < 320));
    }
}
