//! The lab's cache of runs: its key (what changes what a run gives), what it recalls, and when it
//! is written.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use sha2::{Digest, Sha256};

use crate::config::Settings;
use crate::knobs::Inventory;
use crate::model::{Arithmetic, CandidateRun, Configuration, RunResult};
use crate::workspace::{RunTarget, Workspace};

use super::Lab;

impl Lab<'_> {
    /// The run of a configuration in `arithmetic` known from the cache, unless it timed out
    /// under a shorter timeout than today's.
    pub(super) fn recall_run(&self, config: &Configuration, arithmetic: Arithmetic) -> Option<CandidateRun> {
        let cache = self.cache.lock().ok()?;
        let run = cache.get(config, arithmetic)?;
        match run.result {
            RunResult::TimedOut { seconds } if seconds < self.timeout().as_secs_f64() => None,
            _ => Some(run.clone()),
        }
    }

    /// Writes the cache of runs to its file.
    pub(super) fn save_cache(&self) -> Result<()> {
        self.cache.lock().map_err(|_| anyhow!("the cache lock is poisoned"))?.save()?;
        if let Ok(mut last) = self.last_save.lock() {
            *last = Instant::now();
        }
        Ok(())
    }

    /// [`Lab::save_cache`], unless it was written less than `period` ago.
    pub(super) fn save_cache_every(&self, period: Duration) -> Result<()> {
        let due = self.last_save.lock().map(|last| last.elapsed() >= period).unwrap_or(true);
        if due {
            self.save_cache()?;
        }
        Ok(())
    }
}

/// The key of the persistent cache: everything that changes what a configuration's run gives
/// (the sources, the program and its arguments, the tool, the sources of a path dependency on
/// fptune, the target's machine), and nothing that only changes the verdict (the digits) or which configurations are
/// tried (the ladder). Seeds are kept per run.
pub(super) fn cache_key(ws: &Workspace, inv: &Inventory, settings: &Settings, run: &RunTarget) -> String {
    let mut h = Sha256::new();
    h.update(env!("CARGO_PKG_VERSION"));
    for (rel, text) in &inv.sources {
        h.update(rel.as_bytes());
        h.update([0]);
        h.update(text.as_bytes());
        h.update([0]);
    }
    h.update(format!("{:?}|{}", settings.args, run.name()));
    // The machine whose matrix units `fptune::dot` models changes what a run computes (a key
    // without one stays the key it was).
    if let Some(machine) = &settings.ladder.machine {
        h.update(format!("|machine={}", machine.to_ascii_lowercase()));
    }
    // A checkout of fptune as a path dependency: its runtime and macro sources too.
    for dir in ws.fptune_path.as_deref().map(crate::workspace::path_dependency_dirs).unwrap_or_default() {
        hash_dependency(&mut h, &dir);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Feeds a path dependency's sources (`src/` and `Cargo.toml`) to `h`, each named by its path
/// from the dependency's parent, not the absolute one: a checkout moved elsewhere (a worktree,
/// another clone) keeps its cache.
pub(super) fn hash_dependency(h: &mut Sha256, dir: &Path) {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir.join("src"))
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    files.push(dir.join("Cargo.toml"));
    files.sort();
    let parent = dir.parent().unwrap_or(dir);
    for f in files {
        h.update(f.strip_prefix(parent).unwrap_or(&f).to_string_lossy().as_bytes());
        h.update([0]);
        h.update(std::fs::read(&f).unwrap_or_default());
        h.update([0]);
    }
}

#[cfg(test)]
mod tests {
    use sha2::{Digest, Sha256};

    use super::hash_dependency;

    #[test]
    fn a_dependency_hashes_alike_wherever_it_is_checked_out_and_differently_when_edited() -> anyhow::Result<()> {
        let hash = |dir: &std::path::Path| {
            let mut h = Sha256::new();
            hash_dependency(&mut h, dir);
            h.finalize().to_vec()
        };
        let (one, two) = (tempfile::tempdir()?, tempfile::tempdir()?);
        for root in [one.path(), two.path()] {
            std::fs::create_dir_all(root.join("stochastic/src"))?;
            std::fs::write(root.join("stochastic/Cargo.toml"), "[package]\nname = \"fptune\"\n")?;
            std::fs::write(root.join("stochastic/src/lib.rs"), "pub fn f() {}\n")?;
        }
        assert_eq!(hash(&one.path().join("stochastic")), hash(&two.path().join("stochastic")));
        std::fs::write(two.path().join("stochastic/src/lib.rs"), "pub fn g() {}\n")?;
        assert_ne!(hash(&one.path().join("stochastic")), hash(&two.path().join("stochastic")));
        Ok(())
    }
}
