//! All terminal output while tuning: one progress bar per Delta Debugging pass (hidden under
//! `--json` or without a terminal), stages, and the running counts.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::model::Configuration;
use crate::search::SearchEvent;

/// Progress display.
pub struct Console {
    quiet: bool,
    bar: Mutex<Option<ProgressBar>>,
    tested: AtomicUsize,
    valid: AtomicUsize,
    cached: AtomicUsize,
}

impl std::fmt::Debug for Console {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Console").field("quiet", &self.quiet).finish()
    }
}

impl Console {
    /// A console; `quiet` hides everything (for `--json`).
    pub fn new(quiet: bool) -> Console {
        Console {
            quiet,
            bar: Mutex::new(None),
            tested: AtomicUsize::new(0),
            valid: AtomicUsize::new(0),
            cached: AtomicUsize::new(0),
        }
    }

    fn target(&self) -> ProgressDrawTarget {
        if self.quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        }
    }

    fn finish_bar(&self) {
        if let Ok(mut bar) = self.bar.lock() {
            if let Some(b) = bar.take() {
                b.finish();
            }
        }
    }

    /// A stage before or after the search.
    pub fn stage(&self, what: &str) {
        self.finish_bar();
        if !self.quiet {
            eprintln!("fptune: {what}");
        }
    }

    /// A candidate starts.
    pub fn candidate(&self, config: &Configuration) {
        if let Ok(bar) = self.bar.lock() {
            if let Some(b) = bar.as_ref() {
                b.set_message(format!("testing {config}"));
            }
        }
    }

    /// What the search reports.
    pub fn event(&self, e: &SearchEvent) {
        match e {
            SearchEvent::PassStarted { pass, from, to, units } => {
                self.finish_bar();
                let bar = ProgressBar::with_draw_target(None, self.target());
                bar.set_style(
                    ProgressStyle::with_template("{spinner} pass {prefix} [{elapsed}] {pos} tested · {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar.set_prefix(format!("{pass}: {from} -> {to}, {units} unit(s)"));
                bar.enable_steady_tick(Duration::from_millis(200));
                if let Ok(mut slot) = self.bar.lock() {
                    *slot = Some(bar);
                }
            }
            SearchEvent::Tested { outcome } => {
                self.tested.fetch_add(1, Ordering::Relaxed);
                if outcome.is_valid() {
                    self.valid.fetch_add(1, Ordering::Relaxed);
                }
                if outcome.cached {
                    self.cached.fetch_add(1, Ordering::Relaxed);
                }
                if let Ok(bar) = self.bar.lock() {
                    if let Some(b) = bar.as_ref() {
                        b.inc(1);
                        b.set_message(format!(
                            "{} valid, {} from cache · last: {} {}",
                            self.valid.load(Ordering::Relaxed),
                            self.cached.load(Ordering::Relaxed),
                            outcome.configuration,
                            if outcome.is_valid() { "valid" } else { "invalid" }
                        ));
                    }
                }
            }
            SearchEvent::PassFinished { .. } => self.finish_bar(),
            SearchEvent::CheckStarted { units } => self.stage(&format!("checking that none of {units} unit(s) can go lower")),
            SearchEvent::CheckFinished { .. } => self.finish_bar(),
        }
    }
}
