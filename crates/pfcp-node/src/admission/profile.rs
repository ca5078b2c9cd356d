//! UP peer profiles: the overload and load control behaviours of other UP function
//! implementations, so that a CP function can be tried against them (TS 29.244 clauses
//! 6.2.3.2, 6.2.4.2, 6.2.4.3; `docs/overload-control.md`, "UP profiles").
//!
//! The spec leaves most of it to the implementation: the scope of an OCI (the PFCP entity by
//! default, the Node ID with AOCI, 8.2.76), where its sequence number comes from (a counter, or
//! "e.g. ... a time stamp", 6.2.4.3.2), which messages carry it ("in every message, ... or
//! periodically", 6.2.4.2), and where the LCI goes. An [`UpProfile`] names one choice of each;
//! [`UpProfile::preset`] the ones seen in the field. [`UpProfile::default`] is this toolkit's
//! UP function.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use pfcp_overload::{InclusionPolicy, LciPlacement};

use super::AdmissionConfig;

/// The scope of the OCIs a UP function sends (clause 6.2.4.3.1, 8.2.76).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OciScope {
    /// The PFCP entity of the session's UP F-SEID (no AOCI): the spec's default. A rejected
    /// Session Establishment Response still carries AOCI (8.2.76).
    Entity,
    /// The UP function's Node ID (AOCI=1 on every OCI).
    Node,
}

/// Where the Overload Control Sequence Number comes from (clause 6.2.4.3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OciSequence {
    /// A counter from 1, +1 per number.
    Counter,
    /// The clock: NTP seconds (seconds since 1900, as the Recovery Time Stamp).
    Clock,
    /// The clock, started so that it crosses the 32-bit wrap (as NTP seconds do in February
    /// 2036) this long after the UP function starts.
    ClockNearWrap {
        /// From the start to the wrap.
        wrap_in: Duration,
    },
}

/// Which messages carry the OCI ([`InclusionPolicy`]), in the words of the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OciOn {
    /// Until the peer has the current information (this toolkit's default).
    UntilCurrent,
    /// Every eligible message while overloaded.
    Every,
    /// Only rejections.
    Rejections,
    /// Every n-th eligible message to a peer.
    EveryNth(u32),
    /// At most one per peer per period.
    Periodic(Duration),
    /// Never: Cause 74 alone.
    None,
}

impl OciOn {
    /// The reporter's policy.
    pub fn policy(self) -> InclusionPolicy {
        match self {
            OciOn::UntilCurrent => InclusionPolicy::UntilCurrent,
            OciOn::Every => InclusionPolicy::EveryMessage,
            OciOn::Rejections => InclusionPolicy::Rejections,
            OciOn::EveryNth(n) => InclusionPolicy::EveryNth(n),
            OciOn::Periodic(p) => InclusionPolicy::Periodic(p),
            OciOn::None => InclusionPolicy::Never,
        }
    }
}

/// Which messages carry the LCI ([`LciPlacement`]), in the words of the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LciIn {
    /// Session Establishment, Modification and Deletion Responses and Session Report
    /// Requests (Table 7.3-1).
    Responses,
    /// Only Heartbeat Requests and Responses (not in Table 7.3-1, but seen in the field).
    Heartbeat,
}

/// The overload and load control behaviour of a UP function, one choice of each thing
/// TS 29.244 leaves to the implementation: the scope of its OCIs (the PFCP entity by default,
/// the Node ID with AOCI, 8.2.76), where its sequence numbers come from (a counter, or "e.g.
/// ... a time stamp", 6.2.4.3.2), which messages carry its OCI ("in every message, ... or
/// periodically", 6.2.4.2), where its LCI goes, and a count that starts again.
/// [`UpProfile::preset`] names the ones seen in the field; [`UpProfile::default`] is this
/// toolkit's UP function (`docs/overload-control.md`, "UP profiles").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct UpProfile {
    /// The scope of its OCIs.
    pub oci_scope: OciScope,
    /// Where its OCI sequence numbers come from.
    pub oci_sequence: OciSequence,
    /// Which messages carry its OCI.
    pub oci_on: OciOn,
    /// Which messages carry its LCI.
    pub lci_in: LciIn,
    /// After how long its count of OCI sequence numbers starts again (a restart of the part
    /// that owns it, the Recovery Time Stamp unchanged), if at all.
    pub sequence_reset_after: Option<Duration>,
}

impl Default for UpProfile {
    /// This toolkit's UP function: node-scoped OCIs (its queue measures the whole UP
    /// function), numbers from a counter, an OCI until the peer has the current information,
    /// the LCI on the responses, no reset.
    fn default() -> Self {
        UpProfile {
            oci_scope: OciScope::Node,
            oci_sequence: OciSequence::Counter,
            oci_on: OciOn::UntilCurrent,
            lci_in: LciIn::Responses,
            sequence_reset_after: None,
        }
    }
}

/// Why a profile, or one of its parts, did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} {given:?}: expected {expected}")]
pub struct ProfileError {
    what: &'static str,
    given: String,
    expected: &'static str,
}

impl ProfileError {
    fn new(what: &'static str, given: &str, expected: &'static str) -> Self {
        ProfileError {
            what,
            given: given.to_owned(),
            expected,
        }
    }
}

impl UpProfile {
    /// The named presets, with what each one is.
    pub const PRESETS: [(&'static str, &'static str); 11] = [
        ("toolkit", "this toolkit's UP function (the default)"),
        (
            "spec-default",
            "entity-scoped OCIs (no AOCI), the spec's default scope",
        ),
        ("clock", "sequence numbers from the clock (NTP seconds)"),
        (
            "clock-near-wrap",
            "sequence numbers from a clock that crosses the 32-bit wrap 5 s after the start",
        ),
        (
            "every-message",
            "an OCI on every eligible message while overloaded",
        ),
        ("rejections-only", "an OCI only on rejections"),
        ("every-10th", "an OCI on every 10th eligible message"),
        ("periodic", "at most one OCI per CP function per second"),
        ("heartbeat-lci", "the LCI only in Heartbeat messages"),
        (
            "sequence-reset",
            "the count of sequence numbers starts again 5 s after the start",
        ),
        ("cause-74-only", "no OCI at all: Cause 74 alone"),
    ];

    /// With `oci_scope` set (see the field).
    #[must_use]
    pub fn with_oci_scope(mut self, scope: OciScope) -> Self {
        self.oci_scope = scope;
        self
    }
    /// With `oci_sequence` set (see the field).
    #[must_use]
    pub fn with_oci_sequence(mut self, sequence: OciSequence) -> Self {
        self.oci_sequence = sequence;
        self
    }
    /// With `oci_on` set (see the field).
    #[must_use]
    pub fn with_oci_on(mut self, on: OciOn) -> Self {
        self.oci_on = on;
        self
    }
    /// With `lci_in` set (see the field).
    #[must_use]
    pub fn with_lci_in(mut self, lci_in: LciIn) -> Self {
        self.lci_in = lci_in;
        self
    }
    /// With `sequence_reset_after` set (see the field).
    #[must_use]
    pub fn with_sequence_reset_after(mut self, after: Option<Duration>) -> Self {
        self.sequence_reset_after = after;
        self
    }

    /// The preset named `name` ([`UpProfile::PRESETS`]).
    pub fn preset(name: &str) -> Option<UpProfile> {
        let base = UpProfile::default();
        Some(match name {
            "toolkit" => base,
            "spec-default" => UpProfile {
                oci_scope: OciScope::Entity,
                ..base
            },
            "clock" => UpProfile {
                oci_sequence: OciSequence::Clock,
                ..base
            },
            "clock-near-wrap" => UpProfile {
                oci_sequence: OciSequence::ClockNearWrap {
                    wrap_in: Duration::from_secs(5),
                },
                ..base
            },
            "every-message" => UpProfile {
                oci_on: OciOn::Every,
                ..base
            },
            "rejections-only" => UpProfile {
                oci_on: OciOn::Rejections,
                ..base
            },
            "every-10th" => UpProfile {
                oci_on: OciOn::EveryNth(10),
                ..base
            },
            "periodic" => UpProfile {
                oci_on: OciOn::Periodic(Duration::from_secs(1)),
                ..base
            },
            "heartbeat-lci" => UpProfile {
                lci_in: LciIn::Heartbeat,
                ..base
            },
            "sequence-reset" => UpProfile {
                sequence_reset_after: Some(Duration::from_secs(5)),
                ..base
            },
            "cause-74-only" => UpProfile {
                oci_on: OciOn::None,
                ..base
            },
            _ => return None,
        })
    }

    /// `config` with this profile's behaviour: the reporter's scope and inclusion policy, the
    /// sequence numbers, the load reporter's placement, the reset. `ntp_seconds` is the wall
    /// clock's NTP seconds when the UP function starts (the caller reads the clock, e.g. for
    /// its Recovery Time Stamp): the clock's numbers count from there.
    pub fn apply(&self, config: AdmissionConfig, ntp_seconds: u32) -> AdmissionConfig {
        let clock = match self.oci_sequence {
            OciSequence::Counter => None,
            OciSequence::Clock => Some(ntp_seconds),
            // The number that reaches 2^32 (0) `wrap_in` after the start.
            OciSequence::ClockNearWrap { wrap_in } => {
                Some(0u32.wrapping_sub(u32::try_from(wrap_in.as_secs()).unwrap_or(u32::MAX)))
            }
        };
        let reporter = config
            .reporter
            .clone()
            .with_node_scoped(self.oci_scope == OciScope::Node)
            .with_inclusion(self.oci_on.policy());
        let placement = match self.lci_in {
            LciIn::Responses => LciPlacement::Responses,
            LciIn::Heartbeat => LciPlacement::Heartbeat,
        };
        let load = config.load_reporter.clone().with_placement(placement);
        config
            .with_reporter(reporter)
            .with_load_reporter(load)
            .with_oci_clock(clock)
            .with_sequence_reset_after(self.sequence_reset_after)
    }
}

impl FromStr for UpProfile {
    type Err = ProfileError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        UpProfile::preset(s).ok_or_else(|| {
            ProfileError::new(
                "profile",
                s,
                "toolkit, spec-default, clock, clock-near-wrap, every-message, rejections-only, \
                 every-10th, periodic, heartbeat-lci, sequence-reset or cause-74-only",
            )
        })
    }
}

impl FromStr for OciScope {
    type Err = ProfileError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "entity" => Ok(OciScope::Entity),
            "node" => Ok(OciScope::Node),
            _ => Err(ProfileError::new("OCI scope", s, "entity or node")),
        }
    }
}

impl fmt::Display for OciScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OciScope::Entity => "entity",
            OciScope::Node => "node",
        })
    }
}

/// `NAME:NUMBER` split at the colon, the number parsed.
fn with_number(s: &str, name: &str) -> Option<Result<u64, ()>> {
    let rest = s.strip_prefix(name)?;
    let n = rest.strip_prefix(':')?;
    Some(n.parse::<u64>().map_err(|_| ()))
}

impl FromStr for OciSequence {
    type Err = ProfileError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        const EXPECTED: &str = "counter, clock or clock-near-wrap[:SECS]";
        let bad = || ProfileError::new("OCI sequence", s, EXPECTED);
        match s {
            "counter" => return Ok(OciSequence::Counter),
            "clock" => return Ok(OciSequence::Clock),
            "clock-near-wrap" => {
                return Ok(OciSequence::ClockNearWrap {
                    wrap_in: Duration::from_secs(5),
                })
            }
            _ => {}
        }
        match with_number(s, "clock-near-wrap") {
            Some(Ok(secs)) => Ok(OciSequence::ClockNearWrap {
                wrap_in: Duration::from_secs(secs),
            }),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for OciSequence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OciSequence::Counter => f.write_str("counter"),
            OciSequence::Clock => f.write_str("clock"),
            OciSequence::ClockNearWrap { wrap_in } => {
                write!(f, "clock-near-wrap:{}", wrap_in.as_secs())
            }
        }
    }
}

impl FromStr for OciOn {
    type Err = ProfileError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        const EXPECTED: &str = "until-current, every, rejections, every-nth:N, periodic:MS or none";
        let bad = || ProfileError::new("OCI on", s, EXPECTED);
        match s {
            "until-current" => return Ok(OciOn::UntilCurrent),
            "every" => return Ok(OciOn::Every),
            "rejections" => return Ok(OciOn::Rejections),
            "none" => return Ok(OciOn::None),
            _ => {}
        }
        if let Some(n) = with_number(s, "every-nth") {
            return match n.ok().and_then(|n| u32::try_from(n).ok()) {
                Some(n) if n > 0 => Ok(OciOn::EveryNth(n)),
                _ => Err(bad()),
            };
        }
        match with_number(s, "periodic") {
            Some(Ok(ms)) if ms > 0 => Ok(OciOn::Periodic(Duration::from_millis(ms))),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for OciOn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OciOn::UntilCurrent => f.write_str("until-current"),
            OciOn::Every => f.write_str("every"),
            OciOn::Rejections => f.write_str("rejections"),
            OciOn::EveryNth(n) => write!(f, "every-nth:{n}"),
            OciOn::Periodic(p) => write!(f, "periodic:{}", p.as_millis()),
            OciOn::None => f.write_str("none"),
        }
    }
}

impl FromStr for LciIn {
    type Err = ProfileError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "responses" => Ok(LciIn::Responses),
            "heartbeat" => Ok(LciIn::Heartbeat),
            _ => Err(ProfileError::new("LCI in", s, "responses or heartbeat")),
        }
    }
}

impl fmt::Display for LciIn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LciIn::Responses => "responses",
            LciIn::Heartbeat => "heartbeat",
        })
    }
}

impl fmt::Display for UpProfile {
    /// The profile in the tools' words: `oci-scope=node oci-sequence=counter ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "oci-scope={} oci-sequence={} oci-on={} lci-in={}",
            self.oci_scope, self.oci_sequence, self.oci_on, self.lci_in
        )?;
        if let Some(after) = self.sequence_reset_after {
            write!(f, " sequence-reset={}s", after.as_secs_f64())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pfcp_overload::NodeKey;

    #[test]
    fn every_preset_parses_and_the_parts_round_trip() {
        for (name, _) in UpProfile::PRESETS {
            assert_eq!(
                name.parse::<UpProfile>(),
                Ok(UpProfile::preset(name).unwrap())
            );
        }
        assert!("nonsense".parse::<UpProfile>().is_err());
        for s in ["entity", "node"] {
            assert_eq!(s.parse::<OciScope>().unwrap().to_string(), s);
        }
        for s in ["counter", "clock", "clock-near-wrap:30"] {
            assert_eq!(s.parse::<OciSequence>().unwrap().to_string(), s);
        }
        assert_eq!(
            "clock-near-wrap".parse::<OciSequence>(),
            Ok(OciSequence::ClockNearWrap {
                wrap_in: Duration::from_secs(5)
            })
        );
        for s in [
            "until-current",
            "every",
            "rejections",
            "every-nth:4",
            "periodic:500",
            "none",
        ] {
            assert_eq!(s.parse::<OciOn>().unwrap().to_string(), s);
        }
        for bad in [
            "every-nth:0",
            "every-nth:x",
            "periodic:0",
            "periodic",
            "sometimes",
        ] {
            assert!(bad.parse::<OciOn>().is_err(), "{bad}");
        }
        for s in ["responses", "heartbeat"] {
            assert_eq!(s.parse::<LciIn>().unwrap().to_string(), s);
        }
        let e = "clock-ish".parse::<OciSequence>().unwrap_err();
        assert!(e.to_string().contains("clock-near-wrap[:SECS]"), "{e}");
    }

    #[test]
    fn a_profile_sets_the_reporters_it_names() {
        let config = AdmissionConfig::new(NodeKey::fqdn("upf.example.net"));
        let p = UpProfile {
            oci_scope: OciScope::Entity,
            oci_sequence: OciSequence::ClockNearWrap {
                wrap_in: Duration::from_secs(10),
            },
            oci_on: OciOn::Periodic(Duration::from_millis(250)),
            lci_in: LciIn::Heartbeat,
            sequence_reset_after: Some(Duration::from_secs(3)),
        };
        let c = p.apply(config.clone(), 3_900_000_000);
        assert!(!c.reporter.node_scoped);
        // 2^32 - 10: the count reaches 0 ten seconds after the start.
        assert_eq!(c.oci_clock, Some(u32::MAX - 9));
        assert_eq!(
            c.reporter.inclusion,
            InclusionPolicy::Periodic(Duration::from_millis(250))
        );
        assert_eq!(c.load_reporter.placement, LciPlacement::Heartbeat);
        assert_eq!(c.sequence_reset_after, Some(Duration::from_secs(3)));
        // The default profile is the admission's own configuration.
        let d = UpProfile::default().apply(config.clone(), 0);
        assert_eq!(d.reporter, config.reporter);
        assert_eq!(d.load_reporter, config.load_reporter);
        assert_eq!(d.oci_clock, None);
        let clock = UpProfile::preset("clock").unwrap().apply(config, 7);
        assert_eq!(clock.oci_clock, Some(7));
    }
}
