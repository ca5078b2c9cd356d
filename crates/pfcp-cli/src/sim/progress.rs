//! The progress of `pfcp sim` on stderr: a bar of the runs done with the one under way and
//! the time elapsed, redrawn a few times a second so that a long real-time run does not look
//! stalled. Shown only on a terminal and without `--quiet`; stdout (the table) and the
//! report's files never see it.

use std::io::IsTerminal as _;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Whether the bar is drawn: on a terminal, unless `--quiet`.
pub(super) fn shown(quiet: bool, stderr_is_terminal: bool) -> bool {
    !quiet && stderr_is_terminal
}

/// The bar of `pfcp sim`'s runs.
#[derive(Debug)]
pub(super) struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar of `runs` runs on stderr, drawn if [`shown`] says so.
    pub(super) fn new(runs: usize, quiet: bool) -> Result<Progress, String> {
        let target = if shown(quiet, std::io::stderr().is_terminal()) {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(runs as u64), target);
        bar.set_style(
            ProgressStyle::with_template(
                "pfcp sim {spinner} [{bar:30}] {pos}/{len} runs, {elapsed_precise}  {msg}",
            )
            .map_err(|e| e.to_string())?
            .progress_chars("=> "),
        );
        if !bar.is_hidden() {
            bar.enable_steady_tick(Duration::from_millis(250));
        }
        Ok(Progress { bar })
    }

    /// Say what runs now.
    pub(super) fn running(&self, what: String) {
        self.bar.set_message(what);
    }

    /// One run done.
    pub(super) fn done(&self) {
        self.bar.inc(1);
    }

    /// Remove the bar.
    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawn_only_on_a_terminal_without_quiet() {
        assert!(shown(false, true));
        assert!(!shown(true, true));
        assert!(!shown(false, false));
        assert!(!shown(true, false));
    }
}
