//! The priority classes of `--mix` and the seeded draw of a new session's class.
//!
//! Each class maps to the [`RequestProfile`] its requests carry: emergency, eMPS, an ARP
//! priority level (1..=15) or low access priority, from which the CP's classifier derives the
//! message priority (TS 29.244 clauses 6.2.4.5.1 and 6.2.4.5.2).

use pfcp_node::RequestProfile;

/// A priority class of `--mix`.
#[derive(Debug, Clone)]
pub(super) struct Class {
    pub(super) name: String,
    pub(super) weight: f64,
    pub(super) profile: RequestProfile,
}

/// The classes of `--mix` (`CLASS=WEIGHT,...`), in the order given.
pub(super) fn parse_mix(text: &str) -> Result<Vec<Class>, String> {
    let mut classes: Vec<Class> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, weight) = part
            .split_once('=')
            .ok_or_else(|| format!("--mix: {part:?} is not CLASS=WEIGHT"))?;
        let name = name.trim().to_ascii_lowercase();
        let weight = weight
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|w| w.is_finite() && *w >= 0.0)
            .ok_or_else(|| format!("--mix: the weight of {name} must be a number, 0 or more"))?;
        let profile = class_profile(&name).ok_or_else(|| {
            format!("--mix: unknown class {name:?} (emergency, emps, arp1 to arp15, lap or none)")
        })?;
        if classes.iter().any(|c| c.name == name) {
            return Err(format!("--mix: class {name} is given twice"));
        }
        classes.push(Class {
            name,
            weight,
            profile,
        });
    }
    if classes.iter().map(|c| c.weight).sum::<f64>() <= 0.0 {
        return Err("--mix: give at least one class with a weight above 0".into());
    }
    Ok(classes)
}

fn class_profile(name: &str) -> Option<RequestProfile> {
    let mut profile = RequestProfile::default();
    match name {
        "emergency" => profile.emergency = true,
        "emps" => profile.emps = true,
        "lap" => profile.low_access_priority = true,
        "none" => {}
        _ => {
            let level = name.strip_prefix("arp")?.parse::<u8>().ok()?;
            if !(1..=15).contains(&level) {
                return None;
            }
            profile = profile.with_arp(&[level]);
        }
    }
    Some(profile)
}

/// SplitMix64: the class draws (seeded, no global RNG).
pub(super) fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The class a draw picks, in proportion to the weights.
pub(super) fn pick(classes: &[Class], draw: u64) -> usize {
    let total: f64 = classes.iter().map(|c| c.weight).sum();
    let mut x = (draw >> 11) as f64 / (1u64 << 53) as f64 * total;
    for (i, c) in classes.iter().enumerate() {
        if x < c.weight {
            return i;
        }
        x -= c.weight;
    }
    classes.iter().rposition(|c| c.weight > 0.0).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_parses() {
        let m = parse_mix("emergency=5, arp2=25,ARP12=70").unwrap();
        let names: Vec<&str> = m.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["emergency", "arp2", "arp12"]);
        assert!(m[0].profile.emergency);
        assert_eq!(m[2].profile.arp_levels, [12]);
        assert!(!m[2].profile.emergency);
        for bad in [
            "",
            "arp16=1",
            "arp0=1",
            "gold=1",
            "arp2",
            "arp2=-1",
            "arp2=1,arp2=2",
            "none=0",
        ] {
            assert!(parse_mix(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn draws_follow_the_weights() {
        let m = parse_mix("emergency=5,arp2=25,arp12=70").unwrap();
        let mut rng = 1;
        let mut n = [0u32; 3];
        for _ in 0..100_000 {
            n[pick(&m, splitmix(&mut rng))] += 1;
        }
        assert!((4_500..5_500).contains(&n[0]), "{n:?}");
        assert!((24_000..26_000).contains(&n[1]), "{n:?}");
        assert!((69_000..71_000).contains(&n[2]), "{n:?}");
        let only = parse_mix("emergency=0,arp9=1").unwrap();
        assert!((0..1000).all(|i| pick(&only, splitmix(&mut (i as u64))) == 1));
    }
}
