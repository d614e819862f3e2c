//! The sources every build of a tuning run starts from: the user's, elaborated with the types
//! rustc inferred ([`crate::typing`], [`crate::elaborate`]), marked for zero-touch tuning
//! ([`crate::auto`]), and the way back from them to the user's text (places, the patch).
//!
//! ```text
//! user's files --typing build--> rustc's types --elaborate--> edits ┐
//!                                           (--auto) markers -> edits ┤
//!                                        one splice a file: user -> base (every build's text)
//! native check of the base: an edit that does not compile is dropped (and said)
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::Result;

use crate::auto;
use crate::model::{FloatFormat, Knob};
use crate::cargo::{self, BuildOptions};
use crate::elaborate::{self, Elaborated, Written};
use crate::scratch::Scratch;
use crate::splice::{self, splice, Edit, Spliced};
use crate::naming;
use crate::typing::{self, Typing};

/// The sources of a tuning run.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// The user's texts, by path relative to the package root.
    pub user: Vec<(String, String)>,
    /// Every build's starting texts (the user's where nothing is written).
    pub base: Vec<(String, String)>,
    /// Per file with edits: what was written, on the user's text.
    pub written: BTreeMap<String, Vec<(Edit, Written)>>,
    /// Per file with edits: the splice from the user's text to the base.
    pub splices: BTreeMap<String, Spliced>,
    /// What the typing build answered.
    pub typing: Typing,
    /// Edits dropped because the elaborated crate did not compile with them, with rustc's words.
    pub dropped: Vec<String>,
}

impl Sources {
    /// The user's sources as they are (no typing build: `--auto` off and nothing to elaborate).
    pub fn plain(user: Vec<(String, String)>) -> Sources {
        Sources { base: user.clone(), user, ..Sources::default() }
    }

    /// The user's texts by path.
    pub fn users(&self) -> BTreeMap<String, &str> {
        self.user.iter().map(|(r, t)| (r.clone(), t.as_str())).collect()
    }

    /// `(line, column)` (1-based) in the user's file of a byte offset of the base, when it is
    /// the user's text there (not fptune's).
    pub fn user_place(&self, file: &str, offset: usize) -> Option<(usize, usize)> {
        let user = self.user.iter().find(|(r, _)| r == file).map(|(_, t)| t.as_str())?;
        let at = match self.splices.get(file) {
            Some(s) => s.original(offset)?,
            None => offset,
        };
        Some(splice::line_column(user, at))
    }

    /// Applies per-file `edits` to the user's texts: the splices and the base.
    fn apply(&mut self, edits: BTreeMap<String, Vec<(Edit, Written)>>) -> Result<()> {
        self.written = edits;
        self.splices.clear();
        self.base = self.user.clone();
        for (rel, text) in self.base.iter_mut() {
            let Some(edits) = self.written.get(rel) else { continue };
            let plain: Vec<Edit> = edits.iter().map(|(e, _)| e.clone()).collect();
            let s = splice(text, &plain)?;
            text.clone_from(&s.text);
            self.splices.insert(rel.clone(), s);
        }
        Ok(())
    }
}

impl Sources {
    /// The user's files as tuning leaves them (what `cargo fptune apply` writes): each knob's
    /// type at its format in `formats` (by knob id), written where the user wrote it, or, for a
    /// knob whose type rustc inferred, as the annotation fptune wrote; with the zero-touch
    /// markers (`auto`) that make mixed precision compile. Literals are as the user wrote them.
    /// Only files that change are returned.
    pub fn tuned_user_texts(&self, knobs: &[Knob], formats: &[FloatFormat], auto: bool) -> Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        for (rel, user) in &self.user {
            let base = self.base.iter().find(|(r, _)| r == rel).map(|(_, t)| t.as_str()).unwrap_or(user);
            let written = self.written.get(rel).map(Vec::as_slice).unwrap_or_default();
            let placed = self.splices.get(rel).map(|s| s.placed.clone()).unwrap_or_default();
            let mut edits: Vec<Edit> = Vec::new();
            let mut any_marker = false;
            // Each knob leaf (base range) with its written format.
            let mut leaves: Vec<((usize, usize), std::borrow::Cow<'static, str>)> = Vec::new();
            for k in knobs.iter().filter(|k| &k.file == rel) {
                for l in &k.leaves {
                    if let (Some(a), Some(b)) = (splice::offset(base, l.start.0, l.start.1), splice::offset(base, l.end.0, l.end.1)) {
                        leaves.push(((a, b), formats[k.id].rust()));
                    }
                }
            }
            let mut inside = vec![false; leaves.len()];
            for (i, (edit, kind)) in written.iter().enumerate() {
                let (ps, pe) = placed.get(i).copied().unwrap_or((0, 0));
                match kind {
                    Written::PlaceTyped if auto => edits.push(edit.clone()),
                    Written::Marker if auto => {
                        any_marker = true;
                        edits.push(Edit { text: edit.text.replace("#[fptune::tune(printed)]", "#[fptune::tune]"), ..edit.clone() });
                    }
                    Written::Annotation { .. } | Written::Alias => {
                        // A knob's inferred type, or a foreign alias in full: written, with the
                        // knob's format.
                        let mine: Vec<usize> = (0..leaves.len()).filter(|&j| ps <= leaves[j].0 .0 && leaves[j].0 .1 <= pe).collect();
                        if mine.is_empty() && *kind == Written::Alias {
                            // No knob there: the user's alias stays.
                            continue;
                        }
                        if mine.is_empty() {
                            // Another binding keeps the type the builds gave it: inference would
                            // follow lowered knobs, which no build checked, and the macro the
                            // applied code keeps rewrote its uses knowing it (`let mut pos: usize
                            // = 0;`: `pos = pos + 1` is no float's store).
                            edits.push(edit.clone());
                            continue;
                        }
                        let mut text = base[ps..pe].to_string();
                        for &j in mine.iter().rev() {
                            let ((a, b), f) = &leaves[j];
                            text.replace_range(a - ps..b - ps, f);
                            inside[j] = true;
                        }
                        edits.push(Edit { text, ..edit.clone() });
                    }
                    // `Complex64::new(..)` written `::num_complex::Complex::new(..)`: natively the
                    // same, and it follows a lowered knob.
                    Written::AliasExpr => edits.push(edit.clone()),
                    _ => {}
                }
            }
            if any_marker {
                if let Some((edit, _)) = written.iter().find(|(_, k)| *k == Written::Extern) {
                    edits.push(edit.clone());
                }
            }
            for (j, ((a, b), f)) in leaves.iter().enumerate() {
                if inside[j] {
                    continue;
                }
                let back = |o: usize| match self.splices.get(rel) {
                    Some(s) => s.original(o),
                    None => Some(o),
                };
                if let (Some(ua), Some(ub)) = (back(*a), back(*b)) {
                    if &user[ua..ub] != *f {
                        edits.push(Edit::replace(ua, ub, f.as_ref()));
                    }
                }
            }
            let text = splice(user, &edits)?.text;
            if &text != user {
                out.push((rel.clone(), text));
            }
        }
        Ok(out)
    }
}

/// What to write besides the types: zero-touch markers in these program files.
#[derive(Clone, Debug, Default)]
pub struct Marking {
    /// Mark every float declaration of these files as a knob (`--auto`).
    pub auto_files: Vec<String>,
    /// Crate roots of a 2015-edition package (they get `extern crate fptune;`).
    pub extern_roots: Vec<String>,
}

/// Runs the typing build in `scratch`, elaborates, marks, and checks that the base compiles
/// natively, dropping any edit it does not compile with (`check` are the options of a native
/// `cargo check` of the scratch copy, which the typing build shares; `typing_apart` the target
/// directory of its capped second try, [`typing::typing_build`]).
pub fn prepare(
    scratch: &Scratch,
    user: Vec<(String, String)>,
    roots: &[String],
    marking: &Marking,
    typing_apart: &Path,
    check: &BuildOptions,
    logs: &Path,
) -> Result<Sources> {
    let mut sources = Sources::plain(user);
    let typed = typing::typing_build(scratch, &sources.user, roots, check.clone(), typing_apart, &crate::outdir::RunLayout::log(logs, "typing"))?;
    if let Some(e) = &typed.error {
        // The plain program did not type-check with the queries (a typing build is the crate as
        // written, fptune's markers blanked): nothing is elaborated, and the builds say the rest.
        sources.dropped.push(format!("the typing build did not compile ({e}): no type was written"));
    }
    sources.typing = typed.typing;
    // The names in the types rustc printed that are not in scope where the types go: where they
    // live (a second `cargo check`, only when there are such names).
    // The same build asks what the foreign aliases written as types stand for (`Complex64`); a
    // second one, only when what they stand for has names not asked yet.
    let names = sources.typing.unresolved_names();
    let own = naming::own_type_names(&sources.user);
    let aliases: BTreeMap<String, BTreeSet<String>> =
        sources.user.iter().map(|(rel, text)| (rel.clone(), naming::alias_candidates(text, &own))).filter(|(_, c)| !c.is_empty()).collect();
    if (!names.is_empty() || !aliases.is_empty()) && typed.error.is_none() {
        let log = crate::outdir::RunLayout::log(logs, "naming");
        let edition_2015 = !marking.extern_roots.is_empty();
        match naming::naming_build(scratch, &sources.user, roots, &names, &aliases, edition_2015, check, &log) {
            Ok(n) => sources.typing.names = n,
            Err(e) => sources.dropped.push(format!("the naming build failed ({e:#}): types with names out of scope were not written")),
        }
        let more: BTreeSet<String> = sources
            .typing
            .names
            .aliases
            .values()
            .flat_map(BTreeMap::values)
            .filter(|ty| !elaborate::writable(ty))
            .flat_map(|ty| naming::unresolved(ty))
            .filter(|n| !names.contains(n))
            .collect();
        if !more.is_empty() {
            let log = crate::outdir::RunLayout::log(logs, "naming-aliases");
            let all: BTreeSet<String> = names.union(&more).cloned().collect();
            match naming::naming_build(scratch, &sources.user, roots, &all, &BTreeMap::new(), edition_2015, check, &log) {
                Ok(n) => sources.typing.names.roots = n.roots,
                Err(e) => sources.dropped.push(format!("the naming build failed ({e:#}): aliases of foreign types were not written in full")),
            }
        }
    }
    let elaborated = elaborate::elaborate(&sources.user, &sources.typing, &marking.extern_roots, &marking.auto_files);
    let mut edits = written_edits(&elaborated);
    if !marking.auto_files.is_empty() {
        let texts = elaborate::texts(&sources.user, &elaborated);
        for (rel, text) in &texts {
            if !marking.auto_files.contains(rel) {
                continue;
            }
            let back = elaborated.iter().find(|e| &e.file == rel).map(|e| &e.spliced);
            for m in auto::markers(text) {
                // Markers go before items and declarations, outside every elaboration edit.
                let at = match back {
                    Some(s) => s.original(m.start),
                    None => Some(m.start),
                };
                if let Some(at) = at {
                    edits.entry(rel.clone()).or_default().push((Edit::insert(at, m.text), Written::Marker));
                }
            }
        }
    }
    sources.apply(edits)?;
    // The elaborated crate must compile natively as the user's does: an edit rustc refuses is
    // dropped (a type printed under a name not in scope there, say), and said. Three rounds drop
    // the edits rustc names; then every edit of the files it names goes (their knobs with them,
    // said), then every edit: fptune's copy never fails where the user's crate builds.
    for round in 0..5 {
        scratch.apply_sources(&changed(&sources))?;
        let built = cargo::build(check, &crate::outdir::RunLayout::log(logs, &format!("elaborated-{}", round + 1)))?;
        scratch.restore_all()?;
        if built.success {
            break;
        }
        // A call generic in its result (`let h: f64 = cfg.get("h")`) typed by its place, which
        // the macro's store hides: said to the macro, the knobs kept.
        let wraps = place_typed_calls(&sources, &built);
        let mut edits = std::mem::take(&mut sources.written);
        if !wraps.is_empty() {
            for (file, ranges) in wraps {
                for (a, b) in ranges {
                    let list = edits.entry(file.clone()).or_default();
                    list.push((Edit::insert(a, "::fptune::typed_by_place!("), Written::PlaceTyped));
                    list.push((Edit::insert(b, ")"), Written::PlaceTyped));
                }
            }
            sources.apply(edits)?;
            continue;
        }
        sources.written = edits;
        let drop = if round < 3 { named_edits(&mut sources, &built) } else { BTreeMap::new() };
        let mut edits = std::mem::take(&mut sources.written);
        if drop.is_empty() {
            // The fourth round, the files rustc names; else (an error near no edit, or the last
            // round) every file.
            let named: BTreeSet<String> = built.errors.iter().filter_map(|e| e.primary()).map(|s| s.file.clone()).collect();
            let whole = round != 3 || !named.iter().any(|f| edits.contains_key(f));
            for (file, list) in edits.iter_mut().filter(|(f, l)| !l.is_empty() && (whole || named.contains(*f))) {
                let why = built.errors.iter().find(|e| e.primary().is_some_and(|s| s.file == *file)).map_or_else(|| built.first_error(), ToString::to_string);
                sources.dropped.push(format!(
                    "{file}: fptune's markers and the types it wrote there did not compile ({why}), so none is written in that file and its declarations are not knobs"
                ));
                list.clear();
            }
        }
        for (file, idx) in drop {
            if let Some(list) = edits.get_mut(&file) {
                let mut i = 0;
                list.retain(|_| {
                    i += 1;
                    !idx.contains(&(i - 1))
                });
            }
        }
        sources.apply(edits)?;
    }
    Ok(sources)
}

/// The calls rustc cannot type in the elaborated build ("type annotations needed", E0282 or
/// E0283, at the call's method or function: [`crate::heal::find::find_expr`]) that the user's
/// build types by their place: each
/// is the value of a float place fptune's macro stores into, which hides the place's type from
/// a result generic in it. Per file, the user-text ranges of the calls not wrapped yet.
fn place_typed_calls(sources: &Sources, built: &cargo::BuildResult) -> BTreeMap<String, Vec<(usize, usize)>> {
    use syn::spanned::Spanned;
    let mut out: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
    for e in built.errors.iter().filter(|e| matches!(e.code.as_deref(), Some("E0282" | "E0283"))) {
        let Some(span) = e.primary() else { continue };
        let (Some(a), Some(b)) = (span.byte_start, span.byte_end) else { continue };
        let Some(base) = sources.base.iter().find(|(r, _)| *r == span.file).map(|(_, t)| t.as_str()) else { continue };
        // The call whose method or function rustc names.
        let call = crate::heal::find::find_expr(base, (a, b), |e, at| match e {
            syn::Expr::MethodCall(m) if at(m.method.span()) == Some((a, b)) => at(e.span()),
            syn::Expr::Call(c) if at(c.func.span()).is_some_and(|(fa, fb)| fa <= a && b <= fb) => at(e.span()),
            _ => None,
        });
        let Some((ca, cb)) = call else { continue };
        if base[..ca].trim_end().ends_with("typed_by_place!(") {
            continue;
        }
        let back = |o: usize| match sources.splices.get(&span.file) {
            Some(s) => s.original(o),
            None => Some(o),
        };
        if let (Some(ua), Some(ub)) = (back(ca), back(cb)) {
            out.entry(span.file.clone()).or_default().push((ua, ub));
        }
    }
    for ranges in out.values_mut() {
        ranges.sort_unstable();
        ranges.dedup();
    }
    out
}

/// The edits of `sources` that `built`'s errors are in, per file (by index in
/// [`Sources::written`]), each error said in [`Sources::dropped`]: the edit the error is in; else
/// the last one before it on its line (a marker in front of the declaration rustc refuses); else
/// the last item marker before it (the item whose expansion rustc refuses); else every edit of
/// the file.
fn named_edits(sources: &mut Sources, built: &cargo::BuildResult) -> BTreeMap<String, Vec<usize>> {
    let mut drop: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for e in &built.errors {
        let Some(span) = e.primary() else { continue };
        let (Some(a), Some(b)) = (span.byte_start, span.byte_end) else { continue };
        let Some(s) = sources.splices.get(&span.file) else { continue };
        let base = sources.base.iter().find(|(r, _)| *r == span.file).map(|(_, t)| t.as_str()).unwrap_or_default();
        let line_start = base[..a.min(base.len())].rfind('\n').map_or(0, |i| i + 1);
        let kinds = sources.written.get(&span.file).map(Vec::as_slice).unwrap_or_default();
        let marker = |i: usize| matches!(kinds.get(i), Some((_, Written::Marker)));
        let hit: Vec<usize> = s
            .placed
            .iter()
            .position(|&(ps, pe)| ps < b.max(a + 1) && a < pe)
            .or_else(|| s.placed.iter().rposition(|&(ps, pe)| line_start <= ps && pe <= a))
            .or_else(|| (0..s.placed.len()).filter(|&i| marker(i) && s.placed[i].1 <= a).max_by_key(|&i| s.placed[i].1))
            .map_or_else(|| (0..s.placed.len()).collect(), |i| vec![i]);
        // A call written `typed_by_place!(..)` is two insertions: both go, or neither.
        let opening = |i: usize| matches!(kinds.get(i), Some((edit, Written::PlaceTyped)) if edit.text != ")");
        let hit: Vec<usize> = hit
            .into_iter()
            .flat_map(|i| match kinds.get(i) {
                Some((_, Written::PlaceTyped)) if opening(i) => vec![i, i + 1],
                Some((_, Written::PlaceTyped)) if i > 0 && opening(i - 1) => vec![i - 1, i],
                _ => vec![i],
            })
            .collect();
        sources.dropped.push(format!("{}: {e}", span.place()));
        drop.entry(span.file.clone()).or_default().extend(hit);
    }
    drop
}

/// The files whose base differs from the user's text.
pub fn changed(sources: &Sources) -> Vec<(String, String)> {
    sources.base.iter().filter(|(rel, text)| sources.user.iter().any(|(r, t)| r == rel && t != text)).cloned().collect()
}

fn written_edits(elaborated: &[Elaborated]) -> BTreeMap<String, Vec<(Edit, Written)>> {
    elaborated.iter().map(|e| (e.file.clone(), e.edits.clone())).collect()
}
