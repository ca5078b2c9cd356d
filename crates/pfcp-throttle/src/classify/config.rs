//! The PFCP rule table ([`ClassifierConfig`]), loadable as data with the `serde` feature.

use super::context::Snssai;
use super::qos::QosPriorities;
use super::rules::Adjustments;

/// The PFCP classifier's configuration. See the [module docs](super) for the default table.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[non_exhaustive]
pub struct ClassifierConfig {
    /// Priority of emergency requests. Default 0.
    pub emergency_priority: u8,
    /// Whether emergency requests are exempt (throttled last). Default true.
    pub emergency_exempt: bool,
    /// Priority of eMPS requests. Default 0.
    pub emps_priority: u8,
    /// Whether eMPS requests are exempt. Default true.
    pub emps_exempt: bool,
    /// Base priority for ARP priority level 1..=15 (index 0 = level 1). Default: level n -> n.
    pub arp_map: [u8; 15],
    /// Base priority when no ARP is known and no QCI / 5QI gives one. Default 8.
    pub no_arp_priority: u8,
    /// Base priorities of QCI and 5QI values (TS 29.244 6.2.4.5.1 "QCI"), ranked together
    /// with the ARP: the more important of the two gives the base. Default: mission-critical
    /// values 2, other GBR values 5, non-GBR values none (see [`QosPriorities`]).
    pub qos: QosPriorities,
    /// Base priority of Low Access Priority UEs. Default 14.
    pub low_access_priority: u8,
    /// Fixed priority per DNN (case-insensitive), before the ARP rule. Default empty.
    pub dnn_overrides: Vec<(String, u8)>,
    /// Fixed priority per S-NSSAI, before the ARP rule. Default empty.
    pub snssai_overrides: Vec<(Snssai, u8)>,
    /// State-aware adjustments (TS 29.273 C.2 and their PFCP counterparts).
    pub adjustments: Adjustments,
    /// Priority assumed for a request without a priority (a received request without MP,
    /// 7.2.2.4.1: "a default priority", value not specified; or a request of one's own that
    /// carries none). Default 15, the lowest ([`crate::priority::UNPRIORITISED`]): the
    /// signalling router assigns such requests its lowest priority, so they are shed first
    /// (see [`crate::priority`] for the mapping of the router's priorities).
    pub request_default: u8,
}

impl Default for ClassifierConfig {
    fn default() -> Self {
        ClassifierConfig {
            emergency_priority: 0,
            emergency_exempt: true,
            emps_priority: 0,
            emps_exempt: true,
            arp_map: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
            no_arp_priority: 8,
            qos: QosPriorities::default(),
            low_access_priority: 14,
            dnn_overrides: Vec::new(),
            snssai_overrides: Vec::new(),
            adjustments: Adjustments::default(),
            request_default: crate::priority::UNPRIORITISED.value(),
        }
    }
}

impl ClassifierConfig {
    /// With `emergency_priority` set (see the field).
    #[must_use]
    pub fn with_emergency_priority(mut self, emergency_priority: u8) -> Self {
        self.emergency_priority = emergency_priority;
        self
    }
    /// With `emergency_exempt` set (see the field).
    #[must_use]
    pub fn with_emergency_exempt(mut self, emergency_exempt: bool) -> Self {
        self.emergency_exempt = emergency_exempt;
        self
    }
    /// With `emps_priority` set (see the field).
    #[must_use]
    pub fn with_emps_priority(mut self, emps_priority: u8) -> Self {
        self.emps_priority = emps_priority;
        self
    }
    /// With `emps_exempt` set (see the field).
    #[must_use]
    pub fn with_emps_exempt(mut self, emps_exempt: bool) -> Self {
        self.emps_exempt = emps_exempt;
        self
    }
    /// With `arp_map` set (see the field).
    #[must_use]
    pub fn with_arp_map(mut self, arp_map: [u8; 15]) -> Self {
        self.arp_map = arp_map;
        self
    }
    /// With `no_arp_priority` set (see the field).
    #[must_use]
    pub fn with_no_arp_priority(mut self, no_arp_priority: u8) -> Self {
        self.no_arp_priority = no_arp_priority;
        self
    }
    /// With `qos` set (see the field).
    #[must_use]
    pub fn with_qos(mut self, qos: QosPriorities) -> Self {
        self.qos = qos;
        self
    }
    /// With `low_access_priority` set (see the field).
    #[must_use]
    pub fn with_low_access_priority(mut self, low_access_priority: u8) -> Self {
        self.low_access_priority = low_access_priority;
        self
    }
    /// With `dnn_overrides` set (see the field).
    #[must_use]
    pub fn with_dnn_overrides(mut self, dnn_overrides: Vec<(String, u8)>) -> Self {
        self.dnn_overrides = dnn_overrides;
        self
    }
    /// With `snssai_overrides` set (see the field).
    #[must_use]
    pub fn with_snssai_overrides(mut self, snssai_overrides: Vec<(Snssai, u8)>) -> Self {
        self.snssai_overrides = snssai_overrides;
        self
    }
    /// With `adjustments` set (see the field).
    #[must_use]
    pub fn with_adjustments(mut self, adjustments: Adjustments) -> Self {
        self.adjustments = adjustments;
        self
    }
    /// With `request_default` set (see the field).
    #[must_use]
    pub fn with_request_default(mut self, request_default: u8) -> Self {
        self.request_default = request_default;
        self
    }
}
