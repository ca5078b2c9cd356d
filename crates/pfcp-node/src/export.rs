//! The node's counters and gauges through the [`metrics`] facade (feature `metrics`): the
//! catalogue of [`Node::metrics`] and, per UP function, [`Node::link_metrics`], each exported
//! under its name and labels with its description. The sans-IO [`Node`] records nothing
//! itself; the tokio endpoint calls [`Exporter::export`] after each turn of its loop, and an
//! embedding of its own can do the same.
//!
//! ```
//! # use std::time::Instant;
//! use pfcp_node::export::Exporter;
//! use pfcp_node::{LocalNode, Node, NodeConfig};
//! use pfcp_overload::NodeKey;
//! use pfcp_wire::ie::RecoveryTimeStamp;
//!
//! let now = Instant::now();
//! let node = Node::new(NodeConfig::new(LocalNode::up(NodeKey::fqdn("upf1.example.net"), RecoveryTimeStamp(1))), now)?;
//! let mut exporter = Exporter::new();
//! // With a recorder installed (a Prometheus exporter, say), this publishes every counter.
//! exporter.export(&node, now);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::time::Instant;

use metrics::{Counter, Gauge, Label};
use pfcp_overload::NodeKey;

use crate::node::{MetricKind, LINK_METRICS, METRICS};
use crate::Node;

/// One metric's handle.
#[derive(Debug)]
enum Handle {
    Counter(Counter),
    Gauge(Gauge),
}

/// Publishes a node's metrics: see the [module docs](self).
#[derive(Debug)]
pub struct Exporter {
    handles: Vec<Handle>,
    /// The counters' values at the last export (a counter is incremented by the difference,
    /// so several nodes of one process add up).
    last: Vec<f64>,
    links: HashMap<(usize, NodeKey), Gauge>,
}

impl Default for Exporter {
    fn default() -> Self {
        Self::new()
    }
}

impl Exporter {
    /// Register and describe every metric with the recorder installed now.
    pub fn new() -> Self {
        let mut described: Vec<&str> = Vec::new();
        let handles = METRICS
            .iter()
            .map(|m| {
                let labels: Vec<Label> = m.labels.iter().map(|(k, v)| Label::new(*k, *v)).collect();
                let first = !described.contains(&m.name);
                if first {
                    described.push(m.name);
                }
                match m.kind {
                    MetricKind::Gauge => {
                        if first {
                            metrics::describe_gauge!(m.name, format!("{} ({})", m.help, m.unit));
                        }
                        Handle::Gauge(metrics::gauge!(m.name, labels))
                    }
                    _ => {
                        if first {
                            metrics::describe_counter!(m.name, format!("{} ({})", m.help, m.unit));
                        }
                        Handle::Counter(metrics::counter!(m.name, labels))
                    }
                }
            })
            .collect();
        for m in LINK_METRICS {
            metrics::describe_gauge!(m.name, format!("{} ({}), by UP function", m.help, m.unit));
        }
        Exporter {
            handles,
            last: vec![0.0; METRICS.len()],
            links: HashMap::new(),
        }
    }

    /// Publish what changed since the last call.
    pub fn export(&mut self, node: &Node, now: Instant) {
        let mut i = 0;
        node.metrics(|_, value| {
            if let (Some(h), Some(last)) = (self.handles.get(i), self.last.get_mut(i)) {
                match h {
                    Handle::Counter(c) => {
                        if value > *last {
                            c.increment((value - *last) as u64);
                        }
                    }
                    Handle::Gauge(g) => {
                        if value != *last {
                            g.set(value);
                        }
                    }
                }
                *last = value;
            }
            i += 1;
        });
        let links = &mut self.links;
        node.link_metrics(now, |up, values| {
            for (k, (m, v)) in LINK_METRICS.iter().zip(values).enumerate() {
                let Some(v) = v else { continue };
                links
                    .entry((k, up.clone()))
                    .or_insert_with(|| metrics::gauge!(m.name, "up" => up.to_string()))
                    .set(*v);
            }
        });
    }
}
