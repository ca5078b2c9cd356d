//! An in-process [`metrics`] recorder for `pfcp up` and `pfcp cp`.
//!
//! `pfcp-node` publishes some of what its overload control does through the `metrics`
//! facade (counters such as `pfcp_requests_rejected_total`; see the table in
//! `pfcp_node::cp`), and `pfcp up` exports its admission's typed counters and gauges
//! (`pfcp_node::admission::AdmissionStats`) there too. The tools install this recorder and read
//! the counters back for their status lines. It keeps every counter and gauge in memory, keyed
//! by name and labels; histograms are discarded.
//!
//! With `--metrics ADDR` the same values also go to a Prometheus exporter
//! ([`metrics_exporter_prometheus`], its HTTP listener on `ADDR`): the global recorder is then
//! a fan-out to both, so the status lines and the scrape endpoint read the same counters.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use metrics::{
    Counter, CounterFn, Gauge, GaugeFn, Histogram, Key, KeyName, Label, Metadata, Recorder,
    SharedString, Unit,
};
use metrics_exporter_prometheus::PrometheusBuilder;
use metrics_util::layers::FanoutBuilder;

/// One counter (a `u64`) or gauge (the bits of an `f64`).
#[derive(Debug, Default)]
struct Cell(AtomicU64);

impl CounterFn for Cell {
    fn increment(&self, value: u64) {
        self.0.fetch_add(value, Ordering::Relaxed);
    }

    fn absolute(&self, value: u64) {
        self.0.fetch_max(value, Ordering::Relaxed);
    }
}

impl Cell {
    fn update_f64(&self, f: impl Fn(f64) -> f64) {
        let _ = self
            .0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |bits| {
                Some(f(f64::from_bits(bits)).to_bits())
            });
    }
}

impl GaugeFn for Cell {
    fn increment(&self, value: f64) {
        self.update_f64(|v| v + value);
    }

    fn decrement(&self, value: f64) {
        self.update_f64(|v| v - value);
    }

    fn set(&self, value: f64) {
        self.0.store(value.to_bits(), Ordering::Relaxed);
    }
}

type Cells = Mutex<HashMap<Key, Arc<Cell>>>;

/// The counters and gauges recorded so far.
#[derive(Debug, Default)]
pub(crate) struct Meter {
    counters: Cells,
    gauges: Cells,
}

fn cell(cells: &Cells, key: &Key) -> Arc<Cell> {
    let mut map = cells.lock().unwrap_or_else(|e| e.into_inner());
    map.entry(key.clone()).or_default().clone()
}

impl Meter {
    /// The sum of the counters named `name` whose labels satisfy `keep`.
    pub(crate) fn counter_where(&self, name: &str, keep: impl Fn(&[Label]) -> bool) -> u64 {
        let map = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        map.iter()
            .filter(|(k, _)| k.name() == name && keep(&k.labels().cloned().collect::<Vec<_>>()))
            .map(|(_, c)| c.0.load(Ordering::Relaxed))
            .sum()
    }

    /// The gauge named `name` (without labels), if it was ever set.
    #[cfg(test)]
    fn gauge(&self, name: &str) -> Option<f64> {
        let map = self.gauges.lock().unwrap_or_else(|e| e.into_inner());
        map.iter()
            .find(|(k, _)| k.name() == name)
            .map(|(_, c)| f64::from_bits(c.0.load(Ordering::Relaxed)))
    }
}

/// The recorder handed to `metrics`: a handle on the shared [`Meter`].
#[derive(Debug)]
struct Shared(Arc<Meter>);

impl Recorder for Shared {
    fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}

    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        Counter::from_arc(cell(&self.0.counters, key))
    }

    fn register_gauge(&self, key: &Key, _: &Metadata<'_>) -> Gauge {
        Gauge::from_arc(cell(&self.0.gauges, key))
    }

    fn register_histogram(&self, _: &Key, _: &Metadata<'_>) -> Histogram {
        Histogram::noop()
    }
}

static METER: OnceLock<Arc<Meter>> = OnceLock::new();

/// Install the recorder as the process's global one (once) and return its meter. If another
/// recorder was installed first, the meter stays empty and the status lines show zeros.
pub(crate) fn install() -> Arc<Meter> {
    METER
        .get_or_init(|| {
            let meter = Arc::new(Meter::default());
            let _ = metrics::set_global_recorder(Shared(meter.clone()));
            meter
        })
        .clone()
}

/// [`install`], and with `prometheus` also a Prometheus scrape endpoint on that address
/// (any path answers `GET` with the text exposition format). Call it inside the tokio
/// runtime: the exporter's listener and upkeep run as tasks on it. Fails if the address
/// cannot be bound, if it has port 0 (the exporter would not say which port it got), or if a
/// recorder was already installed.
pub(crate) fn install_with_exporter(prometheus: Option<SocketAddr>) -> Result<Arc<Meter>, String> {
    let Some(addr) = prometheus else {
        return Ok(install());
    };
    if addr.port() == 0 {
        return Err("--metrics needs a port: the scrape endpoint's address must be known".into());
    }
    if METER.get().is_some() {
        return Err("--metrics: a recorder is already installed".into());
    }
    let (recorder, exporter) = PrometheusBuilder::new()
        .with_http_listener(addr)
        .build()
        .map_err(|e| format!("--metrics {addr}: {e}"))?;
    let meter = Arc::new(Meter::default());
    let fanout = FanoutBuilder::default()
        .add_recorder(Shared(meter.clone()))
        .add_recorder(recorder)
        .build();
    metrics::set_global_recorder(fanout)
        .map_err(|_| "--metrics: a recorder is already installed".to_string())?;
    let _ = METER.set(meter.clone());
    describe();
    tokio::spawn(async move {
        if let Err(e) = exporter.await {
            eprintln!("pfcp: the --metrics endpoint stopped: {e:?}");
        }
    });
    Ok(meter)
}

/// The `peer` label of a metric about one peer: its Node ID, else its address.
pub(crate) fn peer_label(node: Option<&pfcp_overload::NodeKey>, addr: SocketAddr) -> String {
    node.map_or_else(|| addr.to_string(), ToString::to_string)
}

/// Help texts and units for the scrape endpoint: every metric the tools export, their own
/// and pfcp-node's (which its exporter describes too, but `pfcp sim` publishes the simulated
/// nodes' counters without one).
fn describe() {
    metrics::describe_counter!(
        "pfcp_cp_requests_total",
        Unit::Count,
        "pfcp cp: requests by class, step, outcome (succeeded, rejected, throttled, \
         unassociated, timed_out, error) and peer (the UP function's Node ID)"
    );
    metrics::describe_histogram!(
        "pfcp_cp_request_duration_seconds",
        Unit::Seconds,
        "pfcp cp: time from offering a request to its accepted response, by class"
    );
    metrics::describe_counter!(
        "pfcp_cp_oci_received_total",
        Unit::Count,
        "pfcp cp: responses carrying an Overload Control Information, by peer (the UP \
         function that sent it)"
    );
    metrics::describe_gauge!(
        "pfcp_cp_overload_metric_percent",
        Unit::Percent,
        "pfcp cp: the Overload Reduction Metric of the last OCI, by peer (the UP function \
         that sent it)"
    );
    metrics::describe_counter!(
        "pfcp_up_requests_answered_total",
        Unit::Count,
        "pfcp up: requests the emulator answered, by outcome (accepted: Cause 1; refused: \
         Cause 65 or 76) and peer (the CP function that asked)"
    );
    metrics::describe_gauge!(
        "pfcp_sim_goodput_ratio",
        "pfcp sim: goodput over the ideal of each finished run (a ratio, 1 is ideal), by \
         engine (virtual, real), scale (full: the scenario; small: the real-time runs and \
         their twins), plan, strategy and load"
    );
    metrics::describe_gauge!(
        "pfcp_sim_emergency_success_ratio",
        "pfcp sim: emergency success of each finished run (a ratio of the emergency requests \
         offered), by engine, scale, plan, strategy and load"
    );
    metrics::describe_counter!(
        "pfcp_sim_points_total",
        Unit::Count,
        "pfcp sim: runs finished, by engine and scale"
    );
    let mut described: Vec<&str> = Vec::new();
    for m in pfcp_node::node::METRICS {
        if described.contains(&m.name) {
            continue;
        }
        described.push(m.name);
        let help = format!("{} ({})", m.help, m.unit);
        match m.kind {
            pfcp_node::node::MetricKind::Gauge => metrics::describe_gauge!(m.name, help),
            _ => metrics::describe_counter!(m.name, Unit::Count, help),
        }
    }
    for m in pfcp_node::node::LINK_METRICS {
        metrics::describe_gauge!(m.name, format!("{} ({}), by UP function", m.help, m.unit));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_and_gauges_are_read_back() {
        let meter = Arc::new(Meter::default());
        let rec = Shared(meter.clone());
        let meta = Metadata::new("t", metrics::Level::INFO, None);
        let k1 = Key::from_parts("rejected", vec![Label::new("reason", "queue_full")]);
        let k2 = Key::from_parts("rejected", vec![Label::new("cause", "72")]);
        rec.register_counter(&k1, &meta).increment(3);
        rec.register_counter(&k1, &meta).increment(2);
        rec.register_counter(&k2, &meta).increment(7);
        let g = Key::from_name("metric");
        rec.register_gauge(&g, &meta).set(40.0);
        rec.register_gauge(&g, &meta).increment(5.0);
        assert_eq!(meter.counter_where("rejected", |_| true), 12);
        let not_72 = |l: &[Label]| !l.iter().any(|l| l.key() == "cause" && l.value() == "72");
        assert_eq!(meter.counter_where("rejected", not_72), 5);
        assert_eq!(meter.gauge("metric"), Some(45.0));
        assert_eq!(meter.gauge("absent"), None);
        rec.register_gauge(&g, &meta).decrement(30.0);
        assert_eq!(meter.gauge("metric"), Some(15.0));
        // A counter exported as an absolute value (from typed counters) only moves forward.
        let k3 = Key::from_name("served");
        rec.register_counter(&k3, &meta).absolute(10);
        rec.register_counter(&k3, &meta).absolute(7);
        assert_eq!(meter.counter_where("served", |_| true), 10);
    }
}
