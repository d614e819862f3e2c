//! The persistent cache of outcomes, so that a configuration is never tested twice, not even
//! across runs of the same problem.
//!
//! The cache is one JSON file (`fptune.out/cache.json`) holding the outcomes of one *key*: a
//! string the caller derives from everything that could change an outcome (the sources, the
//! settings, the tool's version). Loading a file written under another key starts empty, since
//! its outcomes are about another problem; saving then replaces it.
//!
//! ```json
//! { "version": 1, "key": "…", "outcomes": [ { "configuration": ["f64", "f32"], "invalid": null, … } ] }
//! ```
//!
//! Outcomes are stored as measured (`cached: false`, real build and run seconds) and served with
//! `cached: true` and zero seconds, since serving one costs nothing.

use std::collections::HashMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::model::{Configuration, Outcome};

/// Version of the file's layout; a file of another version is ignored (with a warning).
const VERSION: u32 = 1;

/// Outcomes by configuration, for one key, optionally backed by a file.
#[derive(Debug, Clone)]
pub struct Cache {
    path: Option<PathBuf>,
    key: String,
    outcomes: HashMap<Configuration, Outcome>,
    dirty: bool,
}

/// The file's layout, as written.
#[derive(Serialize)]
struct FileOut<'a> {
    version: u32,
    key: &'a str,
    outcomes: Vec<&'a Outcome>,
}

/// The file's layout, as read: outcomes stay raw so that one bad entry costs only itself.
#[derive(Deserialize)]
struct FileIn {
    version: u32,
    key: String,
    outcomes: Vec<serde_json::Value>,
}

impl Cache {
    /// A cache that lives only in memory (`save` does nothing): for tests, and for runs that
    /// must not reuse earlier outcomes.
    pub fn in_memory(key: impl Into<String>) -> Cache {
        Cache { path: None, key: key.into(), outcomes: HashMap::new(), dirty: false }
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
        let total = file.outcomes.len();
        for value in file.outcomes {
            if let Ok(outcome) = serde_json::from_value::<Outcome>(value) {
                cache.outcomes.insert(outcome.configuration.clone(), outcome);
            }
        }
        let dropped = total - cache.outcomes.len();
        let warning = (dropped > 0).then(|| {
            format!("dropped {dropped} of the {total} outcomes in the cache {}: they are not valid", path.display())
        });
        Ok((cache, warning))
    }

    /// The key the outcomes belong to.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The file it is saved to, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// How many outcomes it holds.
    pub fn len(&self) -> usize {
        self.outcomes.len()
    }

    /// Whether it holds no outcome.
    pub fn is_empty(&self) -> bool {
        self.outcomes.is_empty()
    }

    /// The outcome of `configuration`, if known, marked `cached` with zero seconds.
    pub fn get(&self, configuration: &Configuration) -> Option<Outcome> {
        self.outcomes.get(configuration).map(|stored| Outcome {
            build_seconds: 0.0,
            run_seconds: 0.0,
            cached: true,
            ..stored.clone()
        })
    }

    /// Records an outcome (replacing any earlier one of the same configuration). Outcomes that
    /// were themselves served from a cache are ignored: the measured one is already stored.
    pub fn insert(&mut self, outcome: Outcome) {
        if outcome.cached && self.outcomes.contains_key(&outcome.configuration) {
            return;
        }
        self.outcomes.insert(outcome.configuration.clone(), outcome);
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
        let mut outcomes: Vec<&Outcome> = self.outcomes.values().collect();
        outcomes.sort_by(|a, b| a.configuration.cmp(&b.configuration));
        let file = FileOut { version: VERSION, key: &self.key, outcomes };
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let write = || -> anyhow::Result<()> {
            fs::create_dir_all(dir)?;
            let mut temp = tempfile::NamedTempFile::new_in(dir)?;
            serde_json::to_writer_pretty(&mut temp, &file)?;
            temp.write_all(b"\n")?;
            temp.as_file().sync_all()?;
            temp.persist(path)?;
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
    use crate::model::{FloatFormat, Reason};

    fn outcome(formats: &[FloatFormat], valid: bool) -> Outcome {
        Outcome {
            configuration: Configuration(formats.to_vec()),
            invalid: (!valid).then(|| Reason::TooFewDigits { value: "x[0]".into(), digits: 2.5, required: 6.0 }),
            build_seconds: 3.0,
            run_seconds: 0.5,
            cached: false,
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
    fn saved_outcomes_come_back_marked_cached_with_zero_seconds() -> anyhow::Result<()> {
        let (_dir, path) = temp_path();
        let (mut cache, _) = Cache::load(&path, "k")?;
        cache.insert(outcome(&[F64, F32], true));
        cache.insert(outcome(&[F32, F32], false));
        cache.save()?;

        let (cache, warning) = Cache::load(&path, "k")?;
        assert_eq!(warning, None);
        assert_eq!(cache.len(), 2);
        let got = cache.get(&Configuration(vec![F32, F32])).expect("the outcome is cached");
        let expected = Outcome { cached: true, build_seconds: 0.0, run_seconds: 0.0, ..outcome(&[F32, F32], false) };
        assert_eq!(got, expected);
        assert_eq!(cache.get(&Configuration(vec![F16, F32])), None);
        Ok(())
    }

    #[test]
    fn a_file_of_another_key_gives_an_empty_cache_without_warning() -> anyhow::Result<()> {
        let (_dir, path) = temp_path();
        let (mut cache, _) = Cache::load(&path, "sources v1")?;
        cache.insert(outcome(&[F64], true));
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
        fs::write(&path, b"{ \"version\": 1, \"key\": \"k\", \"outc\xff")?;
        let (mut cache, warning) = Cache::load(&path, "k")?;
        assert!(cache.is_empty());
        assert!(warning.expect("a warning").contains("not valid"));

        // The next save replaces the corrupt file.
        cache.insert(outcome(&[F64], true));
        cache.save()?;
        let (cache, warning) = Cache::load(&path, "k")?;
        assert_eq!((cache.len(), warning), (1, None));
        Ok(())
    }

    #[test]
    fn an_unreadable_entry_is_dropped_alone_with_a_warning() -> anyhow::Result<()> {
        let (_dir, path) = temp_path();
        let (mut cache, _) = Cache::load(&path, "k")?;
        cache.insert(outcome(&[F64], true));
        cache.insert(outcome(&[F32], false));
        cache.save()?;
        let text = fs::read_to_string(&path)?.replacen("\"f32\"", "\"f8\"", 1);
        fs::write(&path, text)?;

        let (cache, warning) = Cache::load(&path, "k")?;
        assert_eq!(cache.len(), 1);
        assert!(cache.get(&Configuration(vec![F64])).is_some());
        assert!(warning.expect("a warning").contains("dropped 1 of the 2"));
        Ok(())
    }

    #[test]
    fn saving_leaves_no_temporary_file_behind() -> anyhow::Result<()> {
        let (_dir, path) = temp_path();
        let (mut cache, _) = Cache::load(&path, "k")?;
        cache.insert(outcome(&[F64], true));
        cache.save()?;
        let dir = path.parent().expect("a parent");
        let names: Vec<_> = fs::read_dir(dir)?.map(|e| e.map(|e| e.file_name())).collect::<Result<_, _>>()?;
        assert_eq!(names, vec![std::ffi::OsString::from("cache.json")]);
        Ok(())
    }

    #[test]
    fn a_cached_outcome_does_not_replace_the_measured_one() {
        let mut cache = Cache::in_memory("k");
        cache.insert(outcome(&[F64], true));
        let served = cache.get(&Configuration(vec![F64])).expect("cached");
        cache.insert(served);
        assert_eq!(cache.outcomes[&Configuration(vec![F64])].build_seconds, 3.0);
    }

    #[test]
    fn an_in_memory_cache_saves_nowhere() -> anyhow::Result<()> {
        let mut cache = Cache::in_memory("k");
        cache.insert(outcome(&[F64], true));
        cache.save()?;
        assert_eq!(cache.path(), None);
        Ok(())
    }
}
