//! The base sources every build starts from: rustc's inferred types written, the zero-touch
//! markers (`--auto`), the knobs and checks found there, and the heals the stochastic build needs.

use anyhow::anyhow;

use crate::outdir::RunLayout;
use crate::conversion;
use crate::convert;
use crate::model::Configuration;
use crate::sources::{self, Marking, Sources};

use crate::heal::Heal;

use super::{lock, Lab, Recipe, TuneError};

impl Lab<'_> {
    /// The sources every build starts from ([`sources::prepare`]): rustc's types written, the
    /// zero-touch markers (`--auto`, where the crate marks no knob), the knobs and checks found
    /// there: the recipe they start, and warnings.
    pub(super) fn prepare_sources(&self) -> Result<(Recipe, Vec<String>), TuneError> {
        let mut warnings = self.ws.trait_crate_warnings.clone();
        let auto = self.settings.auto && self.user.knobs.is_empty() && self.user.untyped.is_empty();
        let user = Sources::plain(self.user.sources.clone());
        let auto_files: Vec<String> = if auto {
            user
                .user
                .iter()
                .map(|(r, _)| r.clone())
                .filter(|r| conversion::program_file(r))
                .filter(|r| self.settings.auto_in.is_empty() || self.settings.auto_in.iter().any(|p| r == p || r.starts_with(&format!("{p}/"))))
                .collect()
        } else {
            Vec::new()
        };
        if self.settings.auto && !auto {
            warnings.push("--auto: the crate marks its knobs with #[tune]: those are the knobs".to_string());
        }
        let marking = Marking {
            auto_files,
            extern_roots: if self.ws.edition == "2015" { self.ws.roots.clone() } else { Vec::new() },
        };
        let worker0 = lock(self, 0)?;
        let scratch = &worker0.scratch;
        let typing_apart = self.build_dir.join("typing");
        let mut check = self.build_options(scratch, false, false);
        check.check = true;
        let prepared = sources::prepare(scratch, user.user, &self.ws.roots, &marking, &typing_apart, &check, &self.logs)
            .map_err(TuneError::internal)?;
        drop(worker0);
        for d in &prepared.dropped {
            warnings.push(format!("a type fptune wrote from rustc's answer did not compile, and was not written: {d}"));
        }
        let mut inv = crate::knobs::inventory_of(prepared.base.clone()).map_err(TuneError::Usage)?;
        // Places are the user's.
        for k in &mut inv.knobs {
            let base = prepared.base.iter().find(|(r, _)| *r == k.file).map(|(_, t)| t.as_str()).unwrap_or_default();
            if let Some((l, c)) = crate::splice::offset(base, k.line, k.column.saturating_sub(1)).and_then(|o| prepared.user_place(&k.file, o)) {
                (k.line, k.column) = (l, c);
            }
        }
        if !inv.untyped.is_empty() {
            let list: Vec<String> = inv
                .untyped
                .iter()
                .map(|u| {
                    let ty = self.untyped_type(&prepared, u);
                    format!("  {}:{}:{}: `{}`{ty}: write its type (`#[tune] let {}: f64 = ..`)", u.file, u.line, u.column, u.name, u.name)
                })
                .collect();
            return Err(TuneError::Conversion(anyhow!(
                "fptune could not write the type of {} knob(s) marked without one, which it needs to change it:\n{}",
                list.len(),
                list.join("\n")
            )));
        }
        let printed = self.settings.check_printed || (self.settings.auto && inv.checks.is_empty());
        if inv.knobs.is_empty() {
            // Nothing was typed because the copy did not compile: that is what to say.
            if let Some(failed) = prepared.dropped.iter().find(|d| d.starts_with("the typing build did not compile")) {
                return Err(TuneError::Original(anyhow!(
                    "the crate does not build in fptune's copy of it, so no knob could be found: {failed} (full log: {})",
                    RunLayout::log(&self.logs, "typing").display()
                )));
            }
            // The markers were written and did not compile: what rustc said, where.
            let refused: Vec<&String> = prepared.dropped.iter().filter(|d| !d.starts_with("the naming build failed")).collect();
            if self.settings.auto && !refused.is_empty() {
                return Err(TuneError::Conversion(anyhow!(
                    "no knobs: --auto marked the crate's float declarations, and the marked crate did not compile, so \
                     fptune dropped its markers (full logs: {}):\n  {}\nplease report this with the lines named",
                    RunLayout::log(&self.logs, "elaborated-1").display(),
                    refused.iter().map(|d| d.as_str()).collect::<Vec<_>>().join("\n  ")
                )));
            }
            return Err(TuneError::Usage(anyhow!(if self.settings.auto {
                "no knobs: --auto found no float declaration in the crate's program files (or in --auto-in)"
            } else {
                "no knobs: mark the float variables to tune with #[tune] inside an item carrying #[fptune::tune] \
                 (see the README, \"Marking a crate\"), or tune every float declaration with --auto"
            })));
        }
        if inv.checks.is_empty() && !printed {
            return Err(TuneError::Usage(anyhow!(
                "no checked results: name the results whose digits count with fptune::check!(value), or check \
                 what the program prints with --check-printed"
            )));
        }
        // What every build starts from, for whoever wants to see it (`logs/sources/`).
        for (rel, text) in sources::changed(&prepared) {
            let path = RunLayout::base_sources(&self.logs).join(&rel);
            if let Some(dir) = path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = std::fs::write(&path, text);
        }
        Ok((Recipe::of(inv, prepared, auto, printed), warnings))
    }

    /// What rustc said of an untyped knob's type, for the message.
    pub(super) fn untyped_type(&self, sources: &Sources, u: &crate::knobs::Untyped) -> String {
        let user = sources.user.iter().find(|(r, _)| *r == u.file).map(|(_, t)| t.as_str()).unwrap_or_default();
        let Some(start) = crate::splice::offset(user, u.line, u.column.saturating_sub(1)) else { return String::new() };
        match sources.typing.binding(&u.file, start, start + u.name.len()) {
            Some(ty) => format!(" has type `{ty}`, which cannot be written there as rustc prints it"),
            None => " has no type rustc answered for".to_string(),
        }
    }

    /// Finds the heals the stochastic build of `start` needs ([`conversion::heal`]); the crate's
    /// code that no heal converts is an error that says where.
    /// The heals, and warnings.
    pub(super) fn heal_stochastic(&self, r: &Recipe, start: &Configuration) -> Result<(Vec<Heal>, Vec<String>), TuneError> {
        let worker0 = lock(self, 0)?;
        let scratch = &worker0.scratch;
        let mut opts = self.build_options(scratch, true, r.quick);
        opts.check = true;
        let edits = convert::configured_edits(&r.sources.base, &r.inv.knobs, &r.units, start).map_err(TuneError::internal)?;
        let users = r.sources.users();
        let healed = conversion::heal(scratch, &opts, &r.sources.base, &edits, &[], &users, &r.sources.splices, &self.log_path("conversion"))
            .map_err(TuneError::internal)?;
        drop(worker0);
        if !healed.stuck.is_empty() {
            let list: Vec<String> = healed.stuck.iter().map(|s| format!("  {s}")).collect();
            return Err(TuneError::Conversion(anyhow!(
                "fptune cannot convert this code for its stochastic build ({} place(s)):\n{}\n(full log: {})",
                list.len(),
                list.join("\n"),
                self.log_path("conversion").display()
            )));
        }
        let mut warnings = Vec::new();
        for h in healed.heals.iter().filter(|h| h.lossy()) {
            let place = r.sources.user_place(&h.file, h.start).map_or_else(|| h.file.clone(), |(l, c)| format!("{}:{l}:{c}", h.file));
            warnings.push(format!("{place}: a value leaves stochastic arithmetic here (its mean is passed on: {})", h.why));
        }
        Ok((healed.heals, warnings))
    }
}
