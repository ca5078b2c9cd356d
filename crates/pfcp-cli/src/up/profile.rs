//! `pfcp up`'s UP profile flags: the overload and load control behaviour of another UP
//! function implementation (`pfcp_node::admission::UpProfile`), to try a CP function against.

use std::time::Duration;

use pfcp_node::admission::{LciIn, OciOn, OciScope, OciSequence, UpProfile};

/// The UP profile flags of `pfcp up` (a preset, then the parts it changes).
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "UP profile")]
pub struct ProfileArgs {
    /// Behave as a preset: toolkit (the default), spec-default, clock, clock-near-wrap,
    /// every-message, rejections-only, every-10th, periodic, heartbeat-lci, sequence-reset or
    /// cause-74-only. The flags below change parts of it.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<UpProfile>,
    /// The scope of the OCIs: entity (no AOCI, the spec's default) or node (AOCI).
    #[arg(long, value_name = "SCOPE", conflicts_with = "entity_scoped")]
    pub oci_scope: Option<OciScope>,
    /// Where the OCI sequence numbers come from: counter, clock (NTP seconds),
    /// clock-near-wrap or clock-near-wrap:SECS (a clock that crosses the 32-bit wrap SECS
    /// seconds after the start, 5 by default).
    #[arg(long, value_name = "SOURCE")]
    pub oci_sequence: Option<OciSequence>,
    /// Which messages carry the OCI: until-current (until a CP function has the current
    /// information), every, rejections, every-nth:N, periodic:MS (at most one per CP function
    /// per period) or none (Cause 74 alone).
    #[arg(long, value_name = "WHEN")]
    pub oci_on: Option<OciOn>,
    /// Which messages carry the LCI: responses (Table 7.3-1) or heartbeat (Heartbeat Requests
    /// and Responses only).
    #[arg(long, value_name = "WHERE")]
    pub lci_in: Option<LciIn>,
    /// Start the count of OCI sequence numbers again SECS seconds after the start, as a UP
    /// function that restarted without a new Recovery Time Stamp does to its CP functions.
    #[arg(long, value_name = "SECS")]
    pub sequence_reset_secs: Option<f64>,
}

impl ProfileArgs {
    /// The profile: the preset (this toolkit's by default), node- or entity-scoped as
    /// `--entity-scoped` says unless `--oci-scope` is given, then the parts given.
    pub fn profile(&self, entity_scoped: bool) -> Result<UpProfile, String> {
        let mut p = self.profile.unwrap_or_default();
        if entity_scoped {
            p.oci_scope = OciScope::Entity;
        }
        if let Some(s) = self.oci_scope {
            p.oci_scope = s;
        }
        if let Some(s) = self.oci_sequence {
            p.oci_sequence = s;
        }
        if let Some(o) = self.oci_on {
            p.oci_on = o;
        }
        if let Some(l) = self.lci_in {
            p.lci_in = l;
        }
        if let Some(secs) = self.sequence_reset_secs {
            if !(secs.is_finite() && secs >= 0.0) {
                return Err("--sequence-reset-secs must be a number of seconds".into());
            }
            p.sequence_reset_after = Some(Duration::from_secs_f64(secs));
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Wrapper {
        #[arg(long)]
        entity_scoped: bool,
        #[command(flatten)]
        behaviour: ProfileArgs,
    }

    fn parse(argv: &[&str]) -> Result<UpProfile, String> {
        let w = Wrapper::try_parse_from(std::iter::once("up").chain(argv.iter().copied()))
            .map_err(|e| e.to_string())?;
        w.behaviour.profile(w.entity_scoped)
    }

    #[test]
    fn the_flags_parse_into_the_profile_they_name() {
        assert_eq!(parse(&[]), Ok(UpProfile::default()));
        let p = parse(&[
            "--profile",
            "heartbeat-lci",
            "--oci-scope",
            "entity",
            "--oci-sequence",
            "clock-near-wrap:30",
            "--oci-on",
            "periodic:500",
            "--sequence-reset-secs",
            "2.5",
        ])
        .unwrap();
        assert_eq!(p.lci_in, LciIn::Heartbeat);
        assert_eq!(p.oci_scope, OciScope::Entity);
        assert_eq!(
            p.oci_sequence,
            OciSequence::ClockNearWrap {
                wrap_in: Duration::from_secs(30)
            }
        );
        assert_eq!(p.oci_on, OciOn::Periodic(Duration::from_millis(500)));
        assert_eq!(p.sequence_reset_after, Some(Duration::from_millis(2500)));
        for bad in [
            &["--oci-on", "sometimes"][..],
            &["--profile", "nonsense"],
            &["--oci-sequence", "clock-near-wrap:x"],
            &["--lci-in", "everywhere"],
            &["--entity-scoped", "--oci-scope", "node"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        let e = parse(&["--oci-on", "sometimes"]).unwrap_err();
        assert!(e.contains("every-nth:N"), "{e}");
    }

    #[test]
    fn flags_change_the_preset_and_entity_scoped_still_works() {
        let args = ProfileArgs {
            profile: Some(UpProfile::preset("clock").unwrap()),
            oci_on: Some(OciOn::Rejections),
            ..ProfileArgs::default()
        };
        let p = args.profile(false).unwrap();
        assert_eq!(p.oci_sequence, OciSequence::Clock);
        assert_eq!(p.oci_on, OciOn::Rejections);
        assert_eq!(p.oci_scope, OciScope::Node);
        assert_eq!(args.profile(true).unwrap().oci_scope, OciScope::Entity);
        let none = ProfileArgs::default();
        assert_eq!(none.profile(false).unwrap(), UpProfile::default());
        let bad = ProfileArgs {
            sequence_reset_secs: Some(f64::NAN),
            ..ProfileArgs::default()
        };
        assert!(bad.profile(false).is_err());
    }
}
