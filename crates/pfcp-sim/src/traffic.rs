//! The CP traffic model: priority classes, the requests of a session's life, and the driver
//! that turns an offered rate into those requests (shared by `pfcp sim` and `pfcp cp`).
//!
//! A session goes through one Session Establishment (TS 29.244 clause 7.5.2), `modifications`
//! Session Modifications (7.5.4) and one Session Deletion (7.5.6). Each offer takes the next
//! step of a session whose previous step has finished (oldest first) or, if there is none, a
//! new session's establishment: the offered rate is what the CP function would send without
//! throttling, whatever happens to each request (clause 6.2.4.4 counts the reduction against
//! it). A failed establishment frees the session; a failed modification goes on to the
//! deletion; a deletion frees it whatever its answer. A session the UP function lost (it
//! restarted) is established again, marked as a restoration.

use std::collections::VecDeque;
use std::net::IpAddr;

use bytes::Bytes;
use pfcp_node::RequestProfile;
use pfcp_throttle::classify::Registration;
use pfcp_wire::ie::FSeid;
use pfcp_wire::{Encode, EncodeError, Header, MessageType};

/// A priority class of the traffic mix.
#[derive(Debug, Clone, PartialEq)]
pub struct Class {
    /// Its name (`emergency`, `emps`, `arp1`..`arp15`, `lap`, `none`).
    pub name: String,
    /// Its share of new sessions (relative weight).
    pub weight: f64,
    /// What its requests tell the CP's classifier.
    pub profile: RequestProfile,
}

/// Why a mix was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("mix: {0}")]
pub struct MixError(String);

/// The classes of a mix `CLASS=WEIGHT,...`, in the order given: `emergency`, `emps`, `arp1` to
/// `arp15` (ARP priority level), `lap` (low access priority) or `none`.
///
/// # Examples
///
/// ```
/// use pfcp_sim::traffic::parse_mix;
///
/// let classes = parse_mix("emergency=1, arp2=3, arp12=6")?;
/// let names: Vec<&str> = classes.iter().map(|c| c.name.as_str()).collect();
/// assert_eq!(names, ["emergency", "arp2", "arp12"]);
/// assert_eq!(classes[1].weight, 3.0);
///
/// assert!(parse_mix("arp16=1").is_err()); // ARP priority levels are 1 to 15
/// assert!(parse_mix("emergency=0").is_err()); // nothing would be offered
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse_mix(text: &str) -> Result<Vec<Class>, MixError> {
    let mut classes: Vec<Class> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, weight) = part
            .split_once('=')
            .ok_or_else(|| MixError(format!("{part:?} is not CLASS=WEIGHT")))?;
        let name = name.trim().to_ascii_lowercase();
        let weight = weight
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|w| w.is_finite() && *w >= 0.0)
            .ok_or_else(|| MixError(format!("the weight of {name} must be a number, 0 or more")))?;
        let profile = class_profile(&name).ok_or_else(|| {
            MixError(format!(
                "unknown class {name:?} (emergency, emps, arp1 to arp15, lap or none)"
            ))
        })?;
        if classes.iter().any(|c| c.name == name) {
            return Err(MixError(format!("class {name} is given twice")));
        }
        classes.push(Class {
            name,
            weight,
            profile,
        });
    }
    if classes.iter().map(|c| c.weight).sum::<f64>() <= 0.0 {
        return Err(MixError(
            "give at least one class with a weight above 0".into(),
        ));
    }
    Ok(classes)
}

fn class_profile(name: &str) -> Option<RequestProfile> {
    let mut profile = RequestProfile::default();
    match name {
        "emergency" => profile = RequestProfile::emergency(),
        "emps" => profile = RequestProfile::emps(),
        "lap" => profile.context.low_access_priority = true,
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

/// SplitMix64 (seeded, no global RNG).
///
/// # Examples
///
/// ```
/// use pfcp_sim::traffic::splitmix;
///
/// // The first outputs of the reference SplitMix64 (Vigna) from state 0.
/// let mut state = 0;
/// assert_eq!(splitmix(&mut state), 0xe220_a839_7b1d_cdaf);
/// assert_eq!(splitmix(&mut state), 0x6e78_9e6a_a1b9_65f4);
/// ```
pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of CP function `i`'s session driver in a scenario seeded with `seed`.
///
/// Hashed, not stepped: SplitMix64 walks its state by a fixed increment, so seeds that differ
/// by a multiple of it (as `seed ^ i x increment` did) give every CP function the same draws
/// shifted by a few, and their classes come in bursts together.
///
/// # Examples
///
/// ```
/// use pfcp_sim::traffic::driver_seed;
///
/// // Deterministic per scenario seed and CP function, different across CP functions.
/// assert_eq!(driver_seed(42, 0), driver_seed(42, 0));
/// assert_ne!(driver_seed(42, 0), driver_seed(42, 1));
/// ```
pub fn driver_seed(seed: u64, i: usize) -> u64 {
    let mut state = seed ^ (i as u64).wrapping_mul(0xD1B5_4A32_D192_ED03) ^ 0xC0FF_EE00;
    splitmix(&mut state)
}

/// A uniform draw in `[0, 1)` from 53 bits of `draw`.
pub fn unit(draw: u64) -> f64 {
    (draw >> 11) as f64 / (1u64 << 53) as f64
}

/// The class a draw picks, in proportion to the weights.
///
/// # Examples
///
/// ```
/// use pfcp_sim::traffic::{parse_mix, pick, unit};
///
/// let classes = parse_mix("emergency=1,arp9=3")?;
/// // A draw is read as a fraction of 2^64: the first quarter picks emergency.
/// assert_eq!(unit(1 << 61), 0.125);
/// assert_eq!(pick(&classes, 1 << 61), 0);
/// assert_eq!(pick(&classes, 1 << 63), 1);
/// assert_eq!(pick(&classes, u64::MAX), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn pick(classes: &[Class], draw: u64) -> usize {
    let total: f64 = classes.iter().map(|c| c.weight).sum();
    let mut x = unit(draw) * total;
    for (i, c) in classes.iter().enumerate() {
        if x < c.weight {
            return i;
        }
        x -= c.weight;
    }
    classes.iter().rposition(|c| c.weight > 0.0).unwrap_or(0)
}

/// A step of a session's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Session Establishment Request.
    Establish,
    /// Session Modification Request.
    Modify,
    /// Session Deletion Request.
    Delete,
}

impl Step {
    /// Every step, in the order of a session's life.
    pub const ALL: [Step; 3] = [Step::Establish, Step::Modify, Step::Delete];

    /// Its position in [`Step::ALL`].
    pub fn index(self) -> usize {
        match self {
            Step::Establish => 0,
            Step::Modify => 1,
            Step::Delete => 2,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Step::Establish => "establishment",
            Step::Modify => "modification",
            Step::Delete => "deletion",
        }
    }
}

/// Create PDR (PDR ID 1, precedence 255, PDI: source interface access, FAR ID 1) and Create
/// FAR (FAR ID 1, apply action FORW): the mandatory rules of a Session Establishment Request.
const CREATE_PDR_AND_FAR: &[u8] = &[
    0x00, 0x01, 0x00, 0x1f, // Create PDR
    0x00, 0x38, 0x00, 0x02, 0x00, 0x01, // PDR ID 1
    0x00, 0x1d, 0x00, 0x04, 0x00, 0x00, 0x00, 0xff, // Precedence 255
    0x00, 0x02, 0x00, 0x05, 0x00, 0x14, 0x00, 0x01, 0x00, // PDI: Source Interface access
    0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, // FAR ID 1
    0x00, 0x03, 0x00, 0x0d, // Create FAR
    0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, // FAR ID 1
    0x00, 0x2c, 0x00, 0x01, 0x02, // Apply Action FORW
];

/// Update FAR (FAR ID 1, apply action FORW): the body of the Session Modification Requests.
const UPDATE_FAR: &[u8] = &[
    0x00, 0x0a, 0x00, 0x0d, // Update FAR
    0x00, 0x6c, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, // FAR ID 1
    0x00, 0x2c, 0x00, 0x01, 0x02, // Apply Action FORW
];

/// The F-SEID of `seid` at `ip`.
pub fn f_seid(seid: u64, ip: IpAddr) -> FSeid {
    FSeid {
        seid,
        ipv4: match ip {
            IpAddr::V4(a) => Some(a),
            IpAddr::V6(_) => None,
        },
        ipv6: match ip {
            IpAddr::V6(a) => Some(a),
            IpAddr::V4(_) => None,
        },
    }
}

/// The header and IEs of a session's request: `node_ie` is the CP's encoded Node ID IE,
/// `fseid_ip` the address of its F-SEID, `cp_seid` its SEID of the session, `up_seid` the UP's
/// (for modifications and deletions).
///
/// # Examples
///
/// ```
/// use pfcp_sim::config::{cp_node_id, node_id_ie};
/// use pfcp_sim::traffic::{build_request, Step};
/// use pfcp_wire::encode::MessageWriter;
/// use pfcp_wire::{Message, MessageType};
///
/// let node_ie = node_id_ie(&cp_node_id(0));
/// let ip = "192.0.2.10".parse()?;
/// let (header, ies) = build_request(Step::Establish, 7, 0, &node_ie, ip)?;
/// // Clause 7.2.2.4.2: the UP's SEID is not known yet, the header carries SEID 0.
/// assert_eq!(header.message_type, MessageType::SESSION_ESTABLISHMENT_REQUEST);
/// assert_eq!(header.seid, Some(0));
///
/// let mut bytes = Vec::new();
/// let mut w = MessageWriter::begin(&mut bytes, &header)?;
/// w.raw_ies(&ies)?;
/// w.finish()?;
/// let msg = Message::decode(&bytes)?;
/// msg.validate()?; // Node ID, CP F-SEID, Create PDR, Create FAR (Table 7.5.2.1-1)
/// assert_eq!(msg.f_seid()?.map(|f| f.seid), Some(7));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn build_request(
    step: Step,
    cp_seid: u64,
    up_seid: u64,
    node_ie: &[u8],
    fseid_ip: IpAddr,
) -> Result<(Header, Bytes), EncodeError> {
    Ok(match step {
        Step::Establish => {
            let mut ies = Vec::with_capacity(node_ie.len() + 17 + CREATE_PDR_AND_FAR.len());
            ies.extend_from_slice(node_ie);
            f_seid(cp_seid, fseid_ip).encode(&mut ies)?;
            ies.extend_from_slice(CREATE_PDR_AND_FAR);
            let h = Header::new(MessageType::SESSION_ESTABLISHMENT_REQUEST).with_seid(0);
            (h, Bytes::from(ies))
        }
        Step::Modify => (
            Header::new(MessageType::SESSION_MODIFICATION_REQUEST).with_seid(up_seid),
            Bytes::from_static(UPDATE_FAR),
        ),
        Step::Delete => (
            Header::new(MessageType::SESSION_DELETION_REQUEST).with_seid(up_seid),
            Bytes::new(),
        ),
    })
}

/// What a session slot holds now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum SlotState {
    /// No session: the slot is on the free list.
    #[default]
    Free,
    /// The session's next step waits in the ready queue.
    Ready(Step),
    /// A step of the session is in flight.
    InFlight(Step),
}

/// One session slot.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    state: SlotState,
    /// How many sessions the slot has held: the high half of the CP's SEIDs it gives, so a
    /// settled step of an earlier session is told from the present one's.
    generation: u32,
    class: usize,
    /// The UP function (an index the caller chose) holding the session, or asked to.
    up: usize,
    cp_seid: u64,
    up_seid: u64,
    modifications_left: u32,
    /// The UP function lost the session while a step was in flight: the next step
    /// establishes it again.
    lost: bool,
    /// This life of the slot is a restoration of a lost session.
    restoring: bool,
}

/// A request to make.
#[derive(Debug, Clone, PartialEq)]
pub struct Work {
    /// The session slot.
    pub slot: usize,
    /// The step.
    pub step: Step,
    /// The class (an index into the mix).
    pub class: usize,
    /// The UP function (the caller's index).
    pub up: usize,
    /// The CP's SEID of the session.
    pub cp_seid: u64,
    /// The UP's SEID of the session (0 before it is established).
    pub up_seid: u64,
    /// What the request tells the CP's overload control.
    pub profile: RequestProfile,
}

/// What became of a request, as the driver needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settled {
    /// The UP function accepted it.
    pub accepted: bool,
    /// The UP's SEID from an accepted establishment's UP F-SEID.
    pub up_seid: Option<u64>,
    /// The UP function that answered an establishment, if it was another than the one asked
    /// (redirected).
    pub holder: Option<usize>,
}

/// The sessions a CP function drives: slots, the queue of pending steps, SEIDs.
///
/// Memory follows the sessions alive, not the cap: a slot is allocated when a session starts
/// and no free one is left, and a session that ends puts its slot on a free list the next
/// session takes first. `sessions` of [`SessionDriver::new`] only bounds how many sessions
/// exist at once (a CP with 200 000 slots and 30 sessions alive holds about 30 slots). The
/// CP's SEID of a session is its slot's index in the low 32 bits and the slot's generation in
/// the high 32 bits, so [`SessionDriver::lost`] finds a session without a table of SEIDs.
///
/// # Examples
///
/// One session slot, one modification: establishment, modification, deletion in turn.
///
/// ```
/// use pfcp_sim::traffic::{parse_mix, SessionDriver, Settled, Step};
///
/// let mut driver = SessionDriver::new(parse_mix("arp9=1")?, 1, 1, false, 42);
/// let accepted = Settled { accepted: true, up_seid: Some(0x99), holder: None };
/// let first = driver.next(|| 0).ok_or("a free slot")?;
/// assert_eq!((first.step, first.up), (Step::Establish, 0));
/// assert!(driver.next(|| 0).is_none()); // the only slot waits for its answer
/// driver.settle(&first, accepted);
///
/// let modify = driver.next(|| 0).ok_or("the next step")?;
/// assert_eq!((modify.step, modify.up_seid), (Step::Modify, 0x99));
/// driver.settle(&modify, accepted);
/// let delete = driver.next(|| 0).ok_or("the last step")?;
/// assert_eq!(delete.step, Step::Delete);
/// driver.settle(&delete, accepted);
/// assert_eq!(driver.live_sessions(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct SessionDriver {
    classes: Vec<Class>,
    modifications: u32,
    redirect: bool,
    /// At most this many slots (sessions at once).
    cap: usize,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Slots whose next step is ready, oldest first (the step is the slot's state).
    ready: VecDeque<u32>,
    live: usize,
    rng: u64,
    /// Sessions established, deleted, lost, restored (established again after a loss).
    pub counts: SessionCounts,
}

/// What happened to the sessions of a driver.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SessionCounts {
    /// Establishments accepted.
    pub established: u64,
    /// Deletions accepted.
    pub deleted: u64,
    /// Sessions the UP function lost (restarted).
    pub lost: u64,
    /// Lost sessions established again.
    pub restored: u64,
}

/// The most slots a driver indexes (the low half of its SEIDs).
const MAX_SLOTS: usize = u32::MAX as usize;

impl SessionDriver {
    /// At most `sessions` sessions at once (slots allocated as sessions start, see the type's
    /// docs) of `classes`, `modifications` per session, redirection of throttled
    /// establishments allowed if `redirect`; draws seeded by `seed`.
    pub fn new(
        classes: Vec<Class>,
        sessions: usize,
        modifications: u32,
        redirect: bool,
        seed: u64,
    ) -> Self {
        SessionDriver {
            classes,
            modifications,
            redirect,
            cap: sessions.min(MAX_SLOTS),
            slots: Vec::new(),
            free: Vec::new(),
            ready: VecDeque::new(),
            live: 0,
            rng: seed,
            counts: SessionCounts::default(),
        }
    }

    /// The classes.
    pub fn classes(&self) -> &[Class] {
        &self.classes
    }

    /// Slots allocated so far: the most sessions that were alive at once (never above the
    /// cap).
    pub fn allocated_slots(&self) -> usize {
        self.slots.len()
    }

    /// Sessions alive now (started and not ended).
    pub fn live_sessions(&self) -> usize {
        self.live
    }

    /// A slot for a new session: a free one, else a new one while under the cap.
    fn take_slot(&mut self) -> Option<u32> {
        if let Some(i) = self.free.pop() {
            return Some(i);
        }
        if self.slots.len() >= self.cap {
            return None;
        }
        let i = u32::try_from(self.slots.len()).ok()?;
        self.slots.push(Slot::default());
        Some(i)
    }

    /// The next request: a pending step of a session, else a new session's establishment on
    /// the UP function `choose_up` picks. `None` when every slot is busy.
    pub fn next(&mut self, choose_up: impl FnOnce() -> usize) -> Option<Work> {
        let (slot, step) = match self.ready.pop_front() {
            Some(i) => {
                let s = self.slots.get_mut(i as usize)?;
                let SlotState::Ready(step) = s.state else {
                    return None;
                };
                s.state = SlotState::InFlight(step);
                (i, step)
            }
            None => {
                let i = self.take_slot()?;
                let class = pick(&self.classes, splitmix(&mut self.rng));
                let modifications = self.modifications;
                let s = self.slots.get_mut(i as usize)?;
                let generation = s.generation.wrapping_add(1).max(1);
                *s = Slot {
                    state: SlotState::InFlight(Step::Establish),
                    generation,
                    class,
                    up: choose_up(),
                    cp_seid: (u64::from(generation) << 32) | u64::from(i),
                    up_seid: 0,
                    modifications_left: modifications,
                    lost: false,
                    restoring: false,
                };
                self.live += 1;
                (i, Step::Establish)
            }
        };
        let s = *self.slots.get(slot as usize)?;
        let mut profile = self.classes.get(s.class)?.profile.clone();
        match step {
            Step::Establish => {
                profile = profile.with_redirect(self.redirect);
                if s.restoring {
                    profile.context.state.restoration = Some(true);
                }
            }
            Step::Modify | Step::Delete => {
                profile.context.state.registration = Some(Registration::Registered);
            }
        }
        Some(Work {
            slot: slot as usize,
            step,
            class: s.class,
            up: s.up,
            cp_seid: s.cp_seid,
            up_seid: s.up_seid,
            profile,
        })
    }

    /// Record what became of `w` and queue the session's next step.
    pub fn settle(&mut self, w: &Work, outcome: Settled) {
        let Some(slot) = self.slots.get_mut(w.slot) else {
            return;
        };
        if slot.cp_seid != w.cp_seid || slot.state != SlotState::InFlight(w.step) {
            return;
        }
        let Ok(index) = u32::try_from(w.slot) else {
            return;
        };
        if slot.lost {
            // The UP function lost the session while this step was in flight: establish it
            // again (a restoration), whatever the answer was.
            slot.lost = false;
            slot.restoring = true;
            slot.up_seid = 0;
            slot.modifications_left = self.modifications;
            slot.state = SlotState::Ready(Step::Establish);
            self.ready.push_back(index);
            return;
        }
        let next = match w.step {
            Step::Establish => match outcome.up_seid {
                Some(seid) if outcome.accepted => {
                    if let Some(h) = outcome.holder {
                        slot.up = h;
                    }
                    slot.up_seid = seid;
                    self.counts.established += 1;
                    if slot.restoring {
                        self.counts.restored += 1;
                        slot.restoring = false;
                    }
                    Some(if slot.modifications_left > 0 {
                        Step::Modify
                    } else {
                        Step::Delete
                    })
                }
                _ => None,
            },
            Step::Modify => {
                slot.modifications_left = slot.modifications_left.saturating_sub(1);
                Some(if outcome.accepted && slot.modifications_left > 0 {
                    Step::Modify
                } else {
                    Step::Delete
                })
            }
            Step::Delete => {
                if outcome.accepted {
                    self.counts.deleted += 1;
                }
                None
            }
        };
        match next {
            Some(s) => {
                slot.state = SlotState::Ready(s);
                self.ready.push_back(index);
            }
            None => {
                slot.state = SlotState::Free;
                self.live = self.live.saturating_sub(1);
                self.free.push(index);
            }
        }
    }

    /// The UP function lost these sessions (by the CP's SEID): each is established again, as a
    /// restoration, at its next step.
    pub fn lost(&mut self, cp_seids: impl IntoIterator<Item = u64>) {
        for seid in cp_seids {
            // The slot is the SEID's low half (see the type's docs); the SEID must still be
            // the slot's present session's.
            let Some(slot) = self.slots.get_mut((seid & 0xFFFF_FFFF) as usize) else {
                continue;
            };
            if slot.cp_seid != seid {
                continue;
            }
            match slot.state {
                SlotState::Free => continue,
                // Waiting for its next step: that step becomes the establishment.
                SlotState::Ready(_) => {
                    slot.state = SlotState::Ready(Step::Establish);
                    slot.restoring = true;
                    slot.up_seid = 0;
                    slot.modifications_left = self.modifications;
                }
                // A step in flight: re-established when it settles.
                SlotState::InFlight(_) => slot.lost = true,
            }
            self.counts.lost += 1;
        }
    }
}

#[cfg(test)]
mod tests;
