//! The persistent cache of candidate runs, so that a configuration is never built and run twice,
//! not even across runs of the same crate, nor across requirements.
//!
//! What the cache stores is a [`CandidateRun`]: what building and running a configuration gave
//! (its checked values, or how it failed), not a verdict. A verdict depends on the requirement and
//! costs nothing to recompute, so one run serves every requirement: a batch over digits 1..=12,
//! or a second `cargo fptune --digits 5` after `--digits 4`, builds only what it never built.
//! Runs are keyed by configuration and arithmetic (native, or DSA with its seed).
//!
//! The cache is one JSON file (`fptune.out/cache.json`) holding the runs of one *key*: a string
//! the caller derives from everything that could change a run (the sources, the program's
//! arguments, the tool's version). Loading a file written under another key starts empty, since
//! its runs are about another program; saving then replaces it.
//!
//! ```json
//! { "version": 2, "key": "…", "runs": [ { "configuration": ["f64", "f32"], "seed": 1, "result": { "kind": "finished", … }, … } ] }
//! ```

use std::collections::HashMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::model::{Arithmetic, CandidateRun, Configuration};

/// Version of the file's layout; a file of another version is ignored (with a warning).
const VERSION: u32 = 2;

/// Which run of a configuration: native, or DSA with its seed.
type RunKey = (Configuration, Arithmetic);

/// Candidate runs by configuration and seed, for one key, optionally backed by a file.
#[derive(Debug, Clone)]
pub struct Cache {
    path: Option<PathBuf>,
    key: String,
    runs: HashMap<RunKey, CandidateRun>,
    dirty: bool,
}

/// The file's layout, as written.
#[derive(Serialize)]
struct FileOut<'a> {
    version: u32,
    key: &'a str,
    runs: Vec<&'a CandidateRun>,
}

/// The file's layout, as read: runs stay raw so that one bad entry costs only itself.
#[derive(Deserialize)]
struct FileIn {
    version: u32,
    key: String,
    #[serde(default)]
    runs: Vec<serde_json::Value>,
}

impl Cache {
    /// A cache that lives only in memory (`save` does nothing): for tests, and for runs that
    /// must not reuse earlier runs.
    pub fn in_memory(key: impl Into<String>) -> Cache {
        Cache { path: None, key: key.into(), runs: HashMap::new(), dirty: false }
    }

    /// Loads the cache of `key` from `path`.
    ///
    /// A missing file, or one written under another key, gives an empty cache. A file that cannot
    /// be understood (corrupt, another layout version) also gives an empty cache, with a warning
    /// to show the user; so do entries that cannot be read, which are dropped one by one. Only a
    /// file that exists but cannot be read at all is an error.
    ///
    /// # Errors
    ///
    /// When the file exists but cannot be read (permissions, a directory in its place).
    pub fn load(path: impl Into<PathBuf>, key: impl Into<String>) -> anyhow::Result<(Cache, Option<String>)> {
        let path = path.into();
        let mut cache = Cache { path: Some(path.clone()), ..Cache::in_memory(key) };
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((cache, None)),
            Err(e) => return Err(e).with_context(|| format!("cannot read the cache {}", path.display())),
        };
        let file: FileIn = match serde_json::from_slice(&bytes) {
            Ok(file) => file,
            Err(e) => {
                let warning = format!("ignoring the cache {}: it is not valid ({e})", path.display());
                return Ok((cache, Some(warning)));
            }
        };
        if file.version != VERSION {
            let warning = format!(
                "ignoring the cache {}: it was written in layout version {}, this is version {VERSION}",
                path.display(),
                file.version
            );
            return Ok((cache, Some(warning)));
        }
        if file.key != cache.key {
            return Ok((cache, None));
        }
        let total = file.runs.len();
        for value in file.runs {
            if let Ok(run) = serde_json::from_value::<CandidateRun>(value) {
                cache.runs.insert((run.configuration.clone(), run.arithmetic), run);
            }
        }
        let dropped = total - cache.runs.len();
        let warning = (dropped > 0).then(|| {
            format!("dropped {dropped} of the {total} runs in the cache {}: they are not valid", path.display())
        });
        Ok((cache, warning))
    }

    /// The key the runs belong to.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The file it is saved to, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// How many runs it holds.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// Whether it holds no run.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The run of `configuration` in `arithmetic`, if known.
    pub fn get(&self, configuration: &Configuration, arithmetic: Arithmetic) -> Option<&CandidateRun> {
        self.runs.get(&(configuration.clone(), arithmetic))
    }

    /// Records a run, replacing any earlier one of the same configuration and seed.
    pub fn insert(&mut self, run: CandidateRun) {
        self.runs.insert((run.configuration.clone(), run.arithmetic), run);
        self.dirty = true;
    }

    /// Writes the cache to its file, if it has one and changed since it was loaded or last
    /// saved. The write is atomic (a temporary file in the same directory, then a rename), so an
    /// interrupted run leaves either the old cache or the new one. The directory is created if
    /// needed.
    ///
    /// # Errors
    ///
    /// When the directory cannot be created or the file cannot be written.
    pub fn save(&mut self) -> anyhow::Result<()> {
        let Some(path) = &self.path else { return Ok(()) };
        if !self.dirty {
            return Ok(());
        }
        let mut runs: Vec<&CandidateRun> = self.runs.values().collect();
        runs.sort_by(|a, b| (&a.configuration, a.arithmetic).cmp(&(&b.configuration, b.arithmetic)));
        let file = FileOut { version: VERSION, key: &self.key, runs };
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let write = || -> anyhow::Result<()> {
            fs::create_dir_all(dir)?;
            // Buffered: serde writes token by token (a run of `control` holds 700 records, and
            // the cache of a batch tens of megabytes). Not synced: losing a cache to a power cut
            // costs only runs; the rename still never leaves a partial file.
            let temp = tempfile::NamedTempFile::new_in(dir)?;
            let mut out = std::io::BufWriter::with_capacity(1 << 20, temp);
            serde_json::to_writer(&mut out, &file)?;
            out.write_all(b"\n")?;
            out.into_inner().map_err(|e| e.into_error())?.persist(path)?;
            Ok(())
        };
        write().with_context(|| format!("cannot write the cache {}", path.display()))?;
        self.dirty = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FloatFormat, Record, RunResult};

    fn run(formats: &[FloatFormat], finished: bool) -> CandidateRun {
        let record = Record {
            name: "x".into(),
            index: 0,
            format: "f64".into(),
            stochastic: true,
            samples: vec![1.0, 1.5, 2.0],
            digits: 0.8,
            rule: None,
        };
        CandidateRun {
            configuration: Configuration(formats.to_vec()),
            arithmetic: Arithmetic::Dsa { seed: 1 },
            result: if finished {
                RunResult::Finished { records: vec![record], overflows: 0 }
            } else {
                RunResult::BuildFailed { error: "mismatched types".into() }
            },
            build_seconds: 3.0,
            run_seconds: 0.5,
            runs: 1,
            log: Some("logs/7.log".into()),
        }
    }

    fn temp_path() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("out").join("cache.json");
        (dir, path)
    }

    use FloatFormat::{F16, F32, F64};

    #[test]
    fn a_missing_file_gives_an_empty_cache_without_warning() -> anyhow::Result<()> {
        let (_dir, path) = temp_path();
        let (cache, warning) = Cache::load(&path, "k")?;
        assert!(cache.is_empty());
        assert_eq!(warning, None);
        Ok(())
    }

    #[test]
    fn saved_runs_come_back_by_configuration_and_seed() -> anyhow::Result<()> {
        let (_dir, path) = temp_path();
        let (mut cache, _) = Cache::load(&path, "k")?;
        cache.insert(run(&[F64, F32], true));
        cache.insert(run(&[F32, F32], false));
        cache.insert(CandidateRun { arithmetic: Arithmetic::Native, ..run(&[F32, F32], true) });
        cache.save()?;

        let (cache, warning) = Cache::load(&path, "k")?;
        assert_eq!(warning, None);
        assert_eq!(cache.len(), 3);
        let config = Configuration(vec![F32, F32]);
        assert_eq!(cache.get(&config, Arithmetic::Dsa { seed: 1 }), Some(&run(&[F32, F32], false)));
        assert_eq!(cache.get(&config, Arithmetic::Native), Some(&CandidateRun { arithmetic: Arithmetic::Native, ..run(&[F32, F32], true) }));
        assert_eq!(cache.get(&config, Arithmetic::Dsa { seed: 2 }), None);
        assert_eq!(cache.get(&Configuration(vec![F16, F32]), Arithmetic::Dsa { seed: 1 }), None);
        Ok(())
    }

    #[test]
    fn a_file_of_another_key_gives_an_empty_cache_without_warning() -> anyhow::Result<()> {
        let (_dir, path) = temp_path();
        let (mut cache, _) = Cache::load(&path, "sources v1")?;
        cache.insert(run(&[F64], true));
        cache.save()?;

        let (cache, warning) = Cache::load(&path, "sources v2")?;
        assert!(cache.is_empty());
        assert_eq!(warning, None);
        Ok(())
    }

    #[test]
    fn a_corrupt_file_gives_an_empty_cache_and_a_warning() -> anyhow::Result<()> {
        let (_dir, path) = temp_path();
        fs::create_dir_all(path.parent().expect("a parent"))?;
        fs::write(&path, b"{ \"version\": 2, \"key\": \"k\", \"outc\xff")?;
        let (mut cache, warning) = Cache::load(&path, "k")?;
        assert!(cache.is_empty());
        assert!(warning.expect("a warning").contains("not valid"));

        // The next save replaces the corrupt file.
        cache.insert(run(&[F64], true));
        cache.save()?;
        let (cache, warning) = Cache::load(&path, "k")?;
        assert_eq!((cache.len(), warning), (1, None));
        Ok(())
    }

    #[test]
    fn an_unreadable_entry_is_dropped_alone_with_a_warning() -> anyhow::Result<()> {
        let (_dir, path) = temp_path();
        let (mut cache, _) = Cache::load(&path, "k")?;
        cache.insert(run(&[F64], true));
        cache.insert(run(&[F32], false));
        cache.save()?;
        let text = fs::read_to_string(&path)?.replacen("\"f32\"", "\"f8\"", 1);
        fs::write(&path, text)?;

        let (cache, warning) = Cache::load(&path, "k")?;
        assert_eq!(cache.len(), 1);
        assert!(cache.get(&Configuration(vec![F64]), Arithmetic::Dsa { seed: 1 }).is_some());
        assert!(warning.expect("a warning").contains("dropped 1 of the 2"));
        Ok(())
    }

    #[test]
    fn saving_leaves_no_temporary_file_behind() -> anyhow::Result<()> {
        let (_dir, path) = temp_path();
        let (mut cache, _) = Cache::load(&path, "k")?;
        cache.insert(run(&[F64], true));
        cache.save()?;
        let dir = path.parent().expect("a parent");
        let names: Vec<_> = fs::read_dir(dir)?.map(|e| e.map(|e| e.file_name())).collect::<Result<_, _>>()?;
        assert_eq!(names, vec![std::ffi::OsString::from("cache.json")]);
        Ok(())
    }

    #[test]
    fn a_file_of_the_previous_layout_is_ignored_with_a_warning() -> anyhow::Result<()> {
        let (_dir, path) = temp_path();
        fs::create_dir_all(path.parent().expect("a parent"))?;
        fs::write(&path, r#"{ "version": 1, "key": "k", "outcomes": [] }"#)?;
        let (cache, warning) = Cache::load(&path, "k")?;
        assert!(cache.is_empty());
        assert!(warning.expect("a warning").contains("layout version 1"));
        Ok(())
    }

    #[test]
    fn an_in_memory_cache_saves_nowhere() -> anyhow::Result<()> {
        let mut cache = Cache::in_memory("k");
        cache.insert(run(&[F64], true));
        cache.save()?;
        assert_eq!(cache.path(), None);
        Ok(())
    }
}
