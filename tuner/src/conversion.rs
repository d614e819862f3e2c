//! The stochastic build of a whole crate: its elaborated sources, every item marked for
//! conversion (`#[fptune::__convert]`, as PROMISE's cadnaizer converts a whole C program), and
//! the heals rustc asks for ([`crate::heal`]), found by building until it compiles.
//!
//! ```text
//! heals = []
//! loop {
//!     write elaborated sources + knob types + heals + conversion marks   (one splice a file)
//!     cargo check, stochastic feature
//!     compiles?               -> done: these heals serve every stochastic build of the crate
//!     read_errors -> new heals -> again; no new heal -> stuck: say where, and what to write
//! }
//! ```
//!
//! Heals are found once, on the reference configuration: they sit where the crate's values meet
//! code the conversion does not reach, which no configuration changes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result};
use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

use crate::cargo::{self, BuildOptions};
use crate::convert;
use crate::elaborate;
use crate::heal::{self, Built, Fix, Heal, Stuck};
use crate::scratch::Scratch;
use crate::splice::{self, splice, Edit, Spliced};

/// Whether a file is the program's code (converted), rather than a build script or a test.
pub fn program_file(rel: &str) -> bool {
    rel.starts_with("src/") || rel.starts_with("examples/")
}

/// The texts of a build, by file: `sources` (the elaborated texts) with `extra` edits (knob
/// types) and `heals`; for a `stochastic` build, conversion marks on every program file too.
/// Each file's splice maps the build's text back to the elaborated one.
pub fn build_files(
    sources: &[(String, String)],
    extra: &BTreeMap<String, Vec<Edit>>,
    heals: &[Heal],
    stochastic: bool,
) -> Result<Vec<(String, Spliced)>> {
    let macros = elaborate::crate_macros(sources);
    let mut out = Vec::new();
    for (rel, text) in sources {
        let mut edits: Vec<Edit> = extra.get(rel).cloned().unwrap_or_default();
        if program_file(rel) {
            for h in heals.iter().filter(|h| &h.file == rel) {
                edits.extend(h.edits());
            }
        }
        if program_file(rel) && stochastic {
            edits.extend(convert::conversion_marks(text)?);
            let kept: Vec<(usize, usize)> =
                heals.iter().filter(|h| &h.file == rel && matches!(h.fix, Fix::KeepPrimitive(_))).map(|h| (h.start, h.end)).collect();
            edits.extend(macro_float_types(text, &macros, &kept));
        }
        // Two heals may replace one range alike (two errors in one `const fn`, each healed by
        // making it an ordinary one): it is replaced once. (Insertions may repeat: nested heals
        // open two parentheses at one place.)
        let mut seen = std::collections::HashSet::new();
        edits.retain(|e| e.start == e.end || seen.insert((e.start, e.end, e.text.clone())));
        out.push((rel.clone(), splice(text, &edits).with_context(|| format!("{rel}: fptune's edits of the stochastic build overlap"))?));
    }
    Ok(out)
}

/// The float types written in the crate's own macros (`macro_rules!` bodies, and the arguments
/// of their invocations), which no item's conversion reaches, made stochastic token by token:
/// `f64` -> `::fptune::Sf64` (not after `::`, as in `core::f64`). A path on the stochastic type
/// that does not exist there (`f64::consts`, `f64::from_bits`) is healed back to primitive.
pub fn macro_float_types(text: &str, macros: &BTreeSet<String>, kept: &[(usize, usize)]) -> Vec<Edit> {
    struct Finder<'a> {
        text: &'a str,
        macros: &'a BTreeSet<String>,
        /// Tokens healed back to primitive.
        kept: &'a [(usize, usize)],
        edits: Vec<Edit>,
    }
    impl Finder<'_> {
        fn tokens(&mut self, tokens: TokenStream) {
            let mut colons = 0;
            for tt in tokens {
                match &tt {
                    TokenTree::Group(g) => self.tokens(g.stream()),
                    TokenTree::Ident(i) if colons < 2 && (i == "f64" || i == "f32") => {
                        let (s, e) = (i.span().start(), i.span().end());
                        if let (Some(a), Some(b)) = (splice::offset(self.text, s.line, s.column), splice::offset(self.text, e.line, e.column)) {
                            if !self.kept.contains(&(a, b)) {
                                let to = if i == "f64" { "::fptune::Sf64" } else { "::fptune::Sf32" };
                                self.edits.push(Edit::replace(a, b, to));
                            }
                        }
                    }
                    _ => {}
                }
                colons = match &tt {
                    TokenTree::Punct(p) if p.as_char() == ':' => colons + 1,
                    _ => 0,
                };
            }
        }
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            let name = m.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            if name == "macro_rules" || self.macros.contains(&name) {
                self.tokens(m.tokens.clone());
            }
        }
    }
    let Ok(file) = syn::parse_file(text) else { return Vec::new() };
    let mut f = Finder { text, macros, kept, edits: Vec::new() };
    f.visit_file(&file);
    f.edits
}

/// What healing a crate's stochastic build gave.
#[derive(Clone, Debug, Default)]
pub struct Healed {
    /// The heals the build needs.
    pub heals: Vec<Heal>,
    /// What no heal answered (empty when the build compiles).
    pub stuck: Vec<Stuck>,
    /// Builds made.
    pub rounds: usize,
}

/// The most builds a search for heals makes. Each round must find a heal, and rustc names some
/// errors one a build (an ambiguous literal argument, E0283, one a function body: a function
/// called with twelve literals needs twelve rounds), so the bound is a safety net, not a limit
/// a crate should meet; a round after the first is an incremental `cargo check`.
pub const MAX_ROUNDS: usize = 256;

/// Builds `sources` (elaborated) in `scratch` as a stochastic build, with `extra` edits and the
/// heals `given`, until it compiles or no heal answers its errors; the heals returned include
/// those given. `opts` should be a stochastic check build's; `users`
/// are the user's texts and `elaborated` the splices that made `sources` from them, for places.
#[allow(clippy::too_many_arguments)]
pub fn heal(
    scratch: &Scratch,
    opts: &BuildOptions,
    sources: &[(String, String)],
    extra: &BTreeMap<String, Vec<Edit>>,
    given: &[Heal],
    users: &BTreeMap<String, &str>,
    elaborated: &BTreeMap<String, Spliced>,
    log: &Path,
) -> Result<Healed> {
    let mut healed = Healed { heals: given.to_vec(), ..Healed::default() };
    let base: BTreeMap<&str, &str> = sources.iter().map(|(r, t)| (r.as_str(), t.as_str())).collect();
    loop {
        let built_files = build_files(sources, extra, &healed.heals, opts.stochastic)?;
        // The scratch copy holds the user's files: every file that differs from them is written.
        let files: Vec<(String, String)> = built_files
            .iter()
            .filter(|(rel, s)| users.get(rel.as_str()) != Some(&s.text.as_str()))
            .map(|(rel, s)| (rel.clone(), s.text.clone()))
            .collect();
        scratch.apply_sources(&files)?;
        let built = cargo::build(opts, log)?;
        healed.rounds += 1;
        if built.success {
            healed.stuck.clear();
            return Ok(healed);
        }
        let by_file: BTreeMap<String, Built<'_>> = built_files
            .iter()
            .map(|(rel, s)| (rel.clone(), Built { base: base[rel.as_str()], built: s, elaborated: elaborated.get(rel) }))
            .collect();
        let reading = heal::read_errors(&built.errors, &by_file, users, &healed.heals);
        healed.stuck = reading.stuck;
        if reading.heals.is_empty() || healed.rounds >= MAX_ROUNDS {
            if healed.stuck.is_empty() {
                let advice = if let Some(why) = built.outside_the_code() {
                    format!("the build failed outside the code, twice ({why}): free memory or disk space and run fptune again")
                } else if reading.heals.is_empty() {
                    "rustc's error names no place fptune converted: please report it with the log".to_string()
                } else {
                    format!("fptune's stochastic build still does not compile after {MAX_ROUNDS} rounds of conversions")
                };
                healed.stuck.push(Stuck { place: "(the build)".into(), message: built.first_error(), advice });
            }
            return Ok(healed);
        }
        healed.heals.extend(reading.heals);
    }
}
