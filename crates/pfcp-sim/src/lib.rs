//! # pfcp-sim
//!
//! An end-to-end overload experiment for PFCP (3GPP TS 29.244 clause 6.2.4), in virtual time:
//! many CP and UP functions, each a real [`pfcp_node::Node`] (the same sans-IO state machines
//! the tokio endpoint runs), exchanging real encoded PFCP messages over a simulated network
//! with delay, jitter and loss. Deterministic from the scenario's seed; it reads no clock (the
//! caller gives the instant virtual time starts at) and does no I/O.
//!
//! A [`Scenario`] says what runs: the UP functions (capacity, queue, the cost of a refusal),
//! the CP functions and their traffic (a class mix, sessions that are established, modified
//! and deleted; profiles for those that are not this toolkit's, [`scenario::CpProfile`]), the
//! loads (a sweep, a step, a restart, CP functions coming and going), and the [`Strategy`]s
//! compared: no control, UP self-protection only, the Annex A.1 random Loss with a plain
//! utilisation metric, and this toolkit. [`run`] runs one strategy on one [`Plan`] and returns
//! what it measured ([`RunResult`]): goodput against the ideal (`min(offered, capacity)`, per
//! control interval with the capacity of the UP functions up where a run is recorded per
//! interval), success per class and per CP profile, latency percentiles, the spread of new
//! sessions, what each UP function refused, and a time series per control interval.
//!
//! Memory follows what is alive: a CP function's session slots are allocated as its sessions
//! start and reused as they end, and in a churn run a CP function whose life ended leaves its
//! node slot to the next.
//!
//! ```
//! use std::time::Instant;
//! use pfcp_sim::{run, Plan, Scenario, Strategy};
//!
//! let mut scenario = Scenario::default();
//! scenario.cps = 2;
//! scenario.sweep.warmup_secs = 1.0;
//! scenario.sweep.measure_secs = 2.0;
//! let classes = scenario.validate()?;
//! // Twice the capacity, with this toolkit.
//! let r = run(&scenario, &classes, Strategy::Toolkit, &Plan::Steady(2.0), Instant::now())?;
//! assert!(r.goodput_ratio() > 0.9, "{}", r.goodput_ratio());
//! assert_eq!(r.class_success("emergency"), Some(1.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `pfcp sim` (crate `pfcp-cli`) runs a whole scenario, both in this virtual time and on real
//! loopback sockets, and writes the table, a JSON report and an SVG plot.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod config;
mod engine;
pub mod record;
pub mod responder;
pub mod scenario;
pub mod traffic;

pub use engine::{run, Plan, SimError};
pub use record::{Latency, RunResult, Sample, Tally};
pub use scenario::{Arrivals, Scenario, ScenarioError, Selection, Strategy};
