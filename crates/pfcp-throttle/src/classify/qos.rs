//! The QoS inputs of the PFCP table: the QCI (EPC, TS 23.203) and 5QI (5GC, TS 23.501) of the
//! bearers or QoS flows a request concerns ([`QosIds`]), their standardized classes
//! ([`QosClass`]) and the priorities the table gives them ([`QosPriorities`]). TS 29.244
//! 6.2.4.5.1 names "QCI" among the inputs of a message's priority.

/// A set of QCI or 5QI values (0..=255) of the bearers or QoS flows a message concerns, as
/// [`ArpLevels`](super::ArpLevels) is of their ARP levels: the most important of them counts.
/// 32 bytes, `Copy`, no allocation. Every value is kept (standardized, operator-specific
/// 128..=254, and the reserved ones, which no default class covers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct QosIds {
    /// Values 0..=127, value `v` at bit `v`.
    low: u128,
    /// Values 128..=255, value `v` at bit `v - 128`.
    high: u128,
}

impl QosIds {
    /// No value known.
    pub const NONE: QosIds = QosIds { low: 0, high: 0 };

    /// The set of `values`.
    pub fn from_values(values: &[u8]) -> QosIds {
        values.iter().fold(QosIds::NONE, |set, &v| set.with(v))
    }

    /// One value.
    pub const fn single(value: u8) -> QosIds {
        QosIds::NONE.with(value)
    }

    /// With `value` added.
    #[must_use]
    pub const fn with(self, value: u8) -> QosIds {
        let bit = 1u128 << (value & 127);
        if value < 128 {
            QosIds {
                low: self.low | bit,
                high: self.high,
            }
        } else {
            QosIds {
                low: self.low,
                high: self.high | bit,
            }
        }
    }

    /// Adds `value`.
    pub fn insert(&mut self, value: u8) {
        *self = self.with(value);
    }

    /// Whether `value` is in the set.
    pub const fn contains(self, value: u8) -> bool {
        let word = if value < 128 { self.low } else { self.high };
        word & (1u128 << (value & 127)) != 0
    }

    /// Whether no value is known.
    pub const fn is_empty(self) -> bool {
        self.low == 0 && self.high == 0
    }

    /// The values, in ascending order (one step per value in the set).
    pub fn iter(self) -> impl Iterator<Item = u8> {
        let bits = |mut word: u128, offset: u8| {
            core::iter::from_fn(move || {
                if word == 0 {
                    return None;
                }
                // At most 127: fits in a u8, and so does `offset + 127`.
                let v = word.trailing_zeros() as u8;
                word &= word - 1;
                Some(offset + v)
            })
        };
        bits(self.low, 0).chain(bits(self.high, 128))
    }
}

impl From<&[u8]> for QosIds {
    fn from(values: &[u8]) -> Self {
        QosIds::from_values(values)
    }
}

impl<const N: usize> From<[u8; N]> for QosIds {
    fn from(values: [u8; N]) -> Self {
        QosIds::from_values(&values)
    }
}

impl FromIterator<u8> for QosIds {
    fn from_iter<I: IntoIterator<Item = u8>>(iter: I) -> Self {
        iter.into_iter().fold(QosIds::NONE, QosIds::with)
    }
}

/// The class of a standardized QCI or 5QI, as the PFCP table ranks it.
///
/// # Examples
///
/// ```
/// use pfcp_throttle::classify::QosClass;
///
/// // TS 23.203 Table 6.1.7-A: QCI 1 (conversational voice) is GBR, 9 non-GBR,
/// // 65 (MCPTT voice) mission-critical.
/// assert_eq!(QosClass::of_qci(1), Some(QosClass::Gbr));
/// assert_eq!(QosClass::of_qci(9), Some(QosClass::NonGbr));
/// assert_eq!(QosClass::of_qci(65), Some(QosClass::MissionCritical));
/// // TS 23.501 Table 5.7.4-1: 5QI 82 (discrete automation) is mission-critical here.
/// assert_eq!(QosClass::of_5qi(82), Some(QosClass::MissionCritical));
/// assert_eq!(QosClass::of_qci(200), None); // operator-specific
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum QosClass {
    /// Mission-critical services: MCPTT voice (65), mission-critical video (67),
    /// mission-critical delay-sensitive signalling (69), mission-critical data (70), and the
    /// delay-critical GBR values of industrial and utility control (82 discrete automation,
    /// 83 discrete automation, 84 intelligent transport systems, 85 electricity distribution,
    /// high voltage).
    MissionCritical,
    /// The other GBR values (delay-critical GBR included): 1-4, 66 (non-mission-critical PTT
    /// voice), 71-76, and for 5QI 86-90.
    Gbr,
    /// The non-GBR values: 5-10, 79, 80 (69 and 70 are mission-critical).
    NonGbr,
}

impl QosClass {
    /// The class of a standardized QCI (TS 23.203 Table 6.1.7-A); `None` for the values the
    /// table does not standardize (0, the operator-specific 128..=254, 255 and the gaps).
    pub const fn of_qci(qci: u8) -> Option<QosClass> {
        Some(match qci {
            65 | 67 | 69 | 70 | 82..=85 => QosClass::MissionCritical,
            1..=4 | 66 | 71..=76 => QosClass::Gbr,
            5..=10 | 79 | 80 => QosClass::NonGbr,
            _ => return None,
        })
    }

    /// The class of a standardized 5QI (TS 23.501 Table 5.7.4-1); `None` for the values the
    /// table does not standardize.
    pub const fn of_5qi(five_qi: u8) -> Option<QosClass> {
        Some(match five_qi {
            65 | 67 | 69 | 70 | 82..=85 => QosClass::MissionCritical,
            1..=4 | 66 | 71..=76 | 86..=90 => QosClass::Gbr,
            5..=10 | 79 | 80 => QosClass::NonGbr,
            _ => return None,
        })
    }
}

/// One entry of a per-value QoS table: the values `first..=last` get `priority`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct QosRange {
    /// The first value of the range.
    pub first: u8,
    /// The last value of the range (inclusive; a range with `last < first` is empty).
    pub last: u8,
    /// The base priority (0 highest .. 15 lowest; larger values read as 15).
    pub priority: u8,
}

impl QosRange {
    /// The values `first..=last`.
    pub const fn new(first: u8, last: u8, priority: u8) -> QosRange {
        QosRange {
            first,
            last,
            priority,
        }
    }

    /// One value.
    pub const fn value(value: u8, priority: u8) -> QosRange {
        QosRange::new(value, value, priority)
    }

    /// Whether `value` is in the range.
    pub const fn contains(&self, value: u8) -> bool {
        self.first <= value && value <= self.last
    }
}

/// The QCI / 5QI part of the PFCP table (TS 29.244 6.2.4.5.1: "QCI" among the inputs of a
/// message's priority): a base priority per value, from the operator's ranges first, then from
/// the value's standardized class.
///
/// | class | values (TS 23.203 Table 6.1.7-A, TS 23.501 Table 5.7.4-1) | default priority |
/// |---|---|---|
/// | mission-critical | 65, 67, 69, 70, 82-85 | 2 |
/// | other GBR | 1-4, 66, 71-76, (5QI) 86-90 | 5 |
/// | non-GBR | 5-10, 79, 80 | none (the ARP decides) |
/// | not standardized | 0, 11-64, ..., 128-254 (operator-specific), 255 | none |
///
/// Why: mission-critical services (public safety push-to-talk and its signalling, and the
/// delay-critical control of automation, transport and power grids) rank right below the
/// exempt eMPS and emergency classes, in the PFCP priorities the signalling router's highest
/// band maps to (1..=3, shed by no egress level); GBR flows carry real-time services whose
/// setup fails when their signalling waits, and rank above the no-ARP default (8), in the
/// band of router priority 2 (4..=7); a non-GBR flow's signalling can be retried, and leaves
/// the base to the ARP. A value's priority only ever raises a request's base above what its
/// ARP gives (see [`Classifier`](super::Classifier)): the table ranks the most important of
/// what is known, as 6.2.4.5.2 ranks by the highest ARP.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
#[non_exhaustive]
pub struct QosPriorities {
    /// Base priority of [`QosClass::MissionCritical`] values. Default 2.
    pub mission_critical: Option<u8>,
    /// Base priority of [`QosClass::Gbr`] values. Default 5.
    pub gbr: Option<u8>,
    /// Base priority of [`QosClass::NonGbr`] values. Default `None` (the ARP decides).
    pub non_gbr: Option<u8>,
    /// Per-QCI priorities, before the classes (first matching range wins). Default empty.
    pub qci: Vec<QosRange>,
    /// Per-5QI priorities, before the classes (first matching range wins). Default empty.
    pub five_qi: Vec<QosRange>,
}

impl Default for QosPriorities {
    fn default() -> Self {
        QosPriorities {
            mission_critical: Some(2),
            gbr: Some(5),
            non_gbr: None,
            qci: Vec::new(),
            five_qi: Vec::new(),
        }
    }
}

impl QosPriorities {
    /// No QoS rule: QCI and 5QI never change a request's priority.
    pub const OFF: QosPriorities = QosPriorities {
        mission_critical: None,
        gbr: None,
        non_gbr: None,
        qci: Vec::new(),
        five_qi: Vec::new(),
    };

    /// The base priority of a QCI: its range in [`QosPriorities::qci`], else its class's;
    /// `None` if neither gives one. At most 15.
    pub fn qci_priority(&self, qci: u8) -> Option<u8> {
        self.lookup(&self.qci, QosClass::of_qci(qci), qci)
    }

    /// The base priority of a 5QI: its range in [`QosPriorities::five_qi`], else its class's;
    /// `None` if neither gives one. At most 15.
    pub fn five_qi_priority(&self, five_qi: u8) -> Option<u8> {
        self.lookup(&self.five_qi, QosClass::of_5qi(five_qi), five_qi)
    }

    /// The base priority of `class`, if the table gives one.
    pub const fn class_priority(&self, class: QosClass) -> Option<u8> {
        match class {
            QosClass::MissionCritical => self.mission_critical,
            QosClass::Gbr => self.gbr,
            QosClass::NonGbr => self.non_gbr,
        }
    }

    /// The most important (numerically smallest) priority of any value of `qci` and
    /// `five_qi`; `None` if no value has one.
    pub fn best(&self, qci: QosIds, five_qi: QosIds) -> Option<u8> {
        let q = (!qci.is_empty())
            .then(|| qci.iter().filter_map(|v| self.qci_priority(v)).min())
            .flatten();
        let f = (!five_qi.is_empty())
            .then(|| {
                five_qi
                    .iter()
                    .filter_map(|v| self.five_qi_priority(v))
                    .min()
            })
            .flatten();
        match (q, f) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn lookup(&self, ranges: &[QosRange], class: Option<QosClass>, value: u8) -> Option<u8> {
        let p = match ranges.iter().find(|r| r.contains(value)) {
            Some(r) => Some(r.priority),
            None => class.and_then(|c| self.class_priority(c)),
        };
        p.map(|p| p.min(15))
    }

    /// With the class priorities set (see the fields).
    #[must_use]
    pub fn with_classes(
        mut self,
        mission_critical: Option<u8>,
        gbr: Option<u8>,
        non_gbr: Option<u8>,
    ) -> Self {
        self.mission_critical = mission_critical;
        self.gbr = gbr;
        self.non_gbr = non_gbr;
        self
    }

    /// With the per-QCI ranges set (see the field).
    #[must_use]
    pub fn with_qci(mut self, ranges: Vec<QosRange>) -> Self {
        self.qci = ranges;
        self
    }

    /// With the per-5QI ranges set (see the field).
    #[must_use]
    pub fn with_five_qi(mut self, ranges: Vec<QosRange>) -> Self {
        self.five_qi = ranges;
        self
    }
}
