//! Building with cargo: the command line ([`cargo_argv`], a pure function), running it
//! ([`build`], through [`crate::process`] with a timeout) and reading cargo's JSON messages into
//! a [`BuildResult`]: did it build, where is the executable, which errors did rustc give.
//!
//! cargo is `$CARGO` when set (as it is under `cargo fptune`), else `cargo` on `PATH`.

use std::ffi::OsString;
use std::fmt;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use cargo_metadata::diagnostic::{DiagnosticLevel, DiagnosticSpan};
use cargo_metadata::{Message, TargetKind};
use serde::{Deserialize, Serialize};

use crate::process::{self, Status};
use crate::scratch::Scratch;

/// The feature of the `fptune` dependency that turns on the stochastic (DSA) build.
pub const STOCHASTIC_FEATURE: &str = "fptune/stochastic";

/// Which target of the package to build.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// cargo's default targets; the executable is the package's only binary, if it has one.
    #[default]
    Default,
    /// `--bin NAME`.
    Bin(String),
    /// `--example NAME`.
    Example(String),
}

/// Which cargo profile to build with.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// `dev`, cargo's default (no flag).
    #[default]
    Dev,
    /// `--release`.
    Release,
    /// `--profile NAME`.
    Named(String),
}

/// How to build one package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// The package's `Cargo.toml` (a scratch copy's: [`crate::scratch::Scratch::manifest_path`]).
    pub manifest_path: PathBuf,
    /// `-p NAME`, for a manifest that is also a workspace root with default members.
    pub package: Option<String>,
    /// Which target.
    pub target: Target,
    /// `--target TRIPLE`: with it, rustflags from the config or the environment apply to the
    /// program's code only, not to build scripts and proc macros, which builds with different
    /// flags then share.
    pub triple: Option<String>,
    /// Which profile.
    pub profile: Profile,
    /// Adds [`STOCHASTIC_FEATURE`] to the features.
    pub stochastic: bool,
    /// More features (`--features`), e.g. the user's own.
    pub features: Vec<String>,
    /// `--no-default-features`.
    pub no_default_features: bool,
    /// `--target-dir` (cargo's default when `None`).
    pub target_dir: Option<PathBuf>,
    /// `--offline`.
    pub offline: bool,
    /// `-j N`: with several workers building at once, their jobs should share the cores. Used only
    /// where there is no [`process::job_pool`], which shares them better.
    pub jobs: Option<usize>,
    /// `--quiet`: no `Compiling ...` lines in the log.
    pub quiet: bool,
    /// Rendered diagnostics carry ANSI colours (`json-diagnostic-rendered-ansi`); plain `json`
    /// otherwise, which is what a log file wants.
    pub ansi: bool,
    /// Environment variables for cargo.
    pub env: Vec<(String, String)>,
    /// `--config KEY=VALUE` settings, e.g. a profile override for one package.
    pub config: Vec<String>,
    /// Where cargo runs. cargo reads `.cargo/config.toml` from this directory and its ancestors,
    /// so the orchestration should pass the *user's* package root
    /// ([`crate::scratch::Scratch::source_root`]): the scratch copy, in a temporary directory,
    /// has no ancestors with the user's settings (registries, rustflags, `[env]`). cargo writes
    /// nothing there. The manifest's directory when `None`.
    pub cwd: Option<PathBuf>,
    /// The build is stopped and fails after this long.
    pub timeout: Duration,
    /// `cargo check` instead of `cargo build`: types and lints only, no code.
    pub check: bool,
}

impl BuildOptions {
    /// Default options for the package at `manifest_path`: its default targets, `dev` profile,
    /// native build, cargo's target dir, a 30-minute timeout.
    pub fn new(manifest_path: impl Into<PathBuf>) -> BuildOptions {
        BuildOptions {
            manifest_path: manifest_path.into(),
            package: None,
            target: Target::Default,
            triple: None,
            profile: Profile::Dev,
            stochastic: false,
            features: Vec::new(),
            no_default_features: false,
            target_dir: None,
            offline: false,
            jobs: None,
            quiet: false,
            ansi: false,
            env: Vec::new(),
            config: Vec::new(),
            cwd: None,
            timeout: Duration::from_secs(30 * 60),
            check: false,
        }
    }

    /// Compiles the program's code for `cpu` (`-C target-cpu`), on top of the user's own flags
    /// ([`target_cpu`]).
    pub fn add_target_cpu(&mut self, cpu: &str) {
        self.add_rustflags(&["-C", &format!("target-cpu={cpu}")]);
    }

    /// Adds `flags` to the user's own rustflags ([`rustflags`]), and to those added before.
    pub fn add_rustflags(&mut self, flags: &[&str]) {
        let added = |key: &str| self.env.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        let (env, config) = rustflags(flags, |key| added(key).or_else(|| std::env::var(key).ok()));
        for (key, value) in env {
            self.env.retain(|(k, _)| *k != key);
            self.env.push((key, value));
        }
        const SETTING: &str = "build.rustflags=[";
        for setting in config {
            match self.config.iter_mut().find(|c| c.starts_with(SETTING)) {
                Some(before) => {
                    before.pop();
                    before.push_str(", ");
                    before.push_str(&setting[SETTING.len()..]);
                }
                None => self.config.push(setting),
            }
        }
    }

    /// Default options for building `scratch`: its manifest, its own target dir, and cargo run
    /// from the user's package root so the user's `.cargo/config.toml` files apply. rustc writes
    /// every type of its diagnostics in full ([`DIAGNOSTIC_WIDTH`]).
    pub fn for_scratch(scratch: &Scratch) -> BuildOptions {
        let mut opts = BuildOptions {
            target_dir: Some(scratch.target_dir().to_path_buf()),
            cwd: Some(scratch.source_root().to_path_buf()),
            ..BuildOptions::new(scratch.manifest_path())
        };
        opts.add_rustflags(&[DIAGNOSTIC_WIDTH]);
        opts
    }
}

/// rustc's width for diagnostics in fptune's builds. A type longer than the width is shortened
/// (`(Probe<f64, 10>, Probe<f64, 10>, ..., ...)`, the full name written to a file), which hides
/// the couplings and pins the probe and the heals read from its parts: a function returning a
/// tuple of nine floats. This width writes every type in full.
pub const DIAGNOSTIC_WIDTH: &str = "--diagnostic-width=100000";

/// The program to run as cargo: `$CARGO`, else `cargo`.
pub fn cargo_program() -> OsString {
    std::env::var_os("CARGO").filter(|c| !c.is_empty()).unwrap_or_else(|| "cargo".into())
}

/// cargo's arguments (after the program, see [`cargo_program`]) for a build with `opts`.
pub fn cargo_argv(opts: &BuildOptions) -> Vec<String> {
    let mut argv = vec![if opts.check { "check" } else { "build" }.to_string()];
    argv.push(
        if opts.ansi { "--message-format=json-diagnostic-rendered-ansi" } else { "--message-format=json" }
            .into(),
    );
    argv.push("--manifest-path".into());
    argv.push(opts.manifest_path.display().to_string());
    if let Some(package) = &opts.package {
        argv.extend(["-p".into(), package.clone()]);
    }
    match &opts.target {
        Target::Default => {}
        Target::Bin(name) => argv.extend(["--bin".into(), name.clone()]),
        Target::Example(name) => argv.extend(["--example".into(), name.clone()]),
    }
    if let Some(triple) = &opts.triple {
        argv.extend(["--target".into(), triple.clone()]);
    }
    match &opts.profile {
        Profile::Dev => {}
        Profile::Release => argv.push("--release".into()),
        Profile::Named(name) => argv.extend(["--profile".into(), name.clone()]),
    }
    let mut features = opts.features.clone();
    if opts.stochastic && !features.iter().any(|f| f == STOCHASTIC_FEATURE) {
        features.push(STOCHASTIC_FEATURE.into());
    }
    if !features.is_empty() {
        argv.extend(["--features".into(), features.join(",")]);
    }
    if opts.no_default_features {
        argv.push("--no-default-features".into());
    }
    if let Some(dir) = &opts.target_dir {
        argv.extend(["--target-dir".into(), dir.display().to_string()]);
    }
    if opts.offline {
        argv.push("--offline".into());
    }
    if let Some(jobs) = opts.jobs {
        argv.extend(["-j".into(), jobs.to_string()]);
    }
    if opts.quiet {
        argv.push("--quiet".into());
    }
    for setting in &opts.config {
        argv.extend(["--config".into(), setting.clone()]);
    }
    argv
}

/// `--config` settings for a DSA candidate's build: `package`'s own code under `profile` without
/// debug information (nothing reads it, and it is a tenth of an optimised build's time), and
/// with `quick` unoptimised too (about three times faster to compile). Its dependencies keep
/// their settings, so their builds are reused.
pub fn candidate_overrides(profile: &str, package: &str, quick: bool) -> Vec<String> {
    let settings: &[&str] = if quick { &["debug=0", "opt-level=0"] } else { &["debug=0"] };
    settings.iter().map(|s| format!("profile.{profile}.package.\"{package}\".{s}")).collect()
}

/// The host's target triple (`rustc -vV`; rustc is `$RUSTC` when set), once per process; `None`
/// when rustc cannot say.
pub fn host_triple() -> Option<&'static str> {
    static HOST: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        let rustc = std::env::var_os("RUSTC").filter(|r| !r.is_empty()).unwrap_or_else(|| "rustc".into());
        let out = std::process::Command::new(rustc).arg("-vV").output().ok().filter(|o| o.status.success())?;
        String::from_utf8_lossy(&out.stdout).lines().find_map(|l| l.strip_prefix("host: ")).map(|h| h.trim().to_string())
    })
    .as_deref()
}

/// Whether cargo, run in `cwd`, is told which target to build for: `build.target` in a config
/// file it reads (`.cargo/config.toml` or `.cargo/config` in `cwd` and its ancestors, then in
/// `cargo_home`), or `CARGO_BUILD_TARGET` (`env_target`). Naming the host's triple would then
/// replace the crate's own target.
pub fn target_configured(cwd: &Path, cargo_home: Option<&Path>, env_target: Option<&str>) -> bool {
    if env_target.is_some_and(|t| !t.trim().is_empty()) {
        return true;
    }
    let dirs = cwd.ancestors().map(|d| d.join(".cargo")).chain(cargo_home.map(Path::to_path_buf));
    dirs.flat_map(|d| [d.join("config.toml"), d.join("config")]).any(|file| {
        std::fs::read_to_string(file)
            .ok()
            .and_then(|text| text.parse::<toml_edit::DocumentMut>().ok())
            .is_some_and(|doc| doc.get("build").and_then(|build| build.get("target")).is_some())
    })
}

/// [`target_configured`] with this process's environment (`CARGO_HOME`, else `~/.cargo`).
pub fn target_configured_here(cwd: &Path) -> bool {
    let home = std::env::var_os("CARGO_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::home_dir().map(|h| h.join(".cargo")));
    target_configured(cwd, home.as_deref(), std::env::var("CARGO_BUILD_TARGET").ok().as_deref())
}

/// The settings that compile a build for `cpu` (`-C target-cpu=CPU`) on top of the user's own
/// flags: [`rustflags`] with that flag.
pub fn target_cpu(cpu: &str, var: impl Fn(&str) -> Option<String>) -> (Vec<(String, String)>, Vec<String>) {
    rustflags(&["-C", &format!("target-cpu={cpu}")], var)
}

/// The settings that add `flags` to the user's own rustflags, wherever cargo takes those from,
/// given the environment (`var`): environment variables for cargo and `--config` settings.
/// `CARGO_ENCODED_RUSTFLAGS` or else `RUSTFLAGS`, when set, replace every other source of flags,
/// so the flags are appended to it; otherwise they are a `build.rustflags` setting, which cargo
/// joins with the config files' (where those set `target.<triple>.rustflags`, cargo ignores
/// `build.rustflags`, and only theirs apply).
pub fn rustflags(flags: &[&str], var: impl Fn(&str) -> Option<String>) -> (Vec<(String, String)>, Vec<String>) {
    if let Some(encoded) = var("CARGO_ENCODED_RUSTFLAGS") {
        // Arguments separated by 0x1f; an empty value is no arguments.
        let mut args: Vec<&str> = if encoded.is_empty() { Vec::new() } else { encoded.split('\x1f').collect() };
        args.extend(flags);
        (vec![("CARGO_ENCODED_RUSTFLAGS".into(), args.join("\x1f"))], Vec::new())
    } else if let Some(env) = var("RUSTFLAGS") {
        (vec![("RUSTFLAGS".into(), format!("{env} {}", flags.join(" ")).trim_start().to_string())], Vec::new())
    } else {
        let quoted: Vec<String> = flags.iter().map(|f| format!("{f:?}")).collect();
        (Vec::new(), vec![format!("build.rustflags=[{}]", quoted.join(", "))])
    }
}

/// Where a diagnostic points.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    /// File, as rustc names it: relative to the workspace root (the scratch package's root) for
    /// the package's own files, absolute for files elsewhere.
    pub file: String,
    /// 1-based first line.
    pub line: usize,
    /// 1-based first column (in characters).
    pub column: usize,
    /// 1-based last line.
    pub line_end: usize,
    /// 1-based column just past the end.
    pub column_end: usize,
    /// Whether rustc marks it as the main place of the error.
    pub primary: bool,
    /// The text rustc puts under it, e.g. ``expected `f64`, found `f32` ``.
    pub label: Option<String>,
    /// The macro whose expansion it is in, when it is (e.g. `fptune::check!`).
    pub macro_name: Option<String>,
    /// Byte offset of its start in the file.
    #[serde(default)]
    pub byte_start: Option<usize>,
    /// Byte offset just past its end.
    #[serde(default)]
    pub byte_end: Option<usize>,
    /// Where the package's own code invokes the macro whose expansion the span is in, when the
    /// span itself is in another crate's file (`array![..]` expanding to ndarray's code):
    /// The innermost such call.
    #[serde(default)]
    pub call_site: Option<Box<Span>>,
}

impl Span {
    fn from_cargo(span: &DiagnosticSpan) -> Span {
        Span {
            file: span.file_name.clone(),
            line: span.line_start,
            column: span.column_start,
            line_end: span.line_end,
            column_end: span.column_end,
            primary: span.is_primary,
            label: span.label.clone(),
            macro_name: span.expansion.as_ref().map(|e| e.macro_decl_name.clone()),
            byte_start: usize::try_from(span.byte_start).ok(),
            byte_end: usize::try_from(span.byte_end).ok(),
            call_site: Self::call_site(span),
        }
    }

    /// The innermost macro call of the chain of expansions `span` is in whose file is the
    /// package's own (a relative path): `array![..]`, not the attribute macro around its item.
    fn call_site(span: &DiagnosticSpan) -> Option<Box<Span>> {
        let mut at = span.expansion.as_deref();
        while let Some(e) = at {
            if !std::path::Path::new(&e.span.file_name).is_absolute() {
                return Some(Box::new(Span { call_site: None, ..Span::from_cargo(&e.span) }));
            }
            at = e.span.expansion.as_deref();
        }
        None
    }

    /// `file:line:column`.
    pub fn place(&self) -> String {
        format!("{}:{}:{}", self.file, self.line, self.column)
    }
}

/// One diagnostic from rustc (an error, with its notes as children).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Diagnostic {
    /// `error`, `warning`, `note`, `help`, `failure-note` or `error: internal compiler error`.
    pub level: String,
    /// The message, e.g. `mismatched types`.
    pub message: String,
    /// The error code, e.g. `E0308`.
    pub code: Option<String>,
    /// The text rustc would print (ANSI-coloured when [`BuildOptions::ansi`]).
    pub rendered: Option<String>,
    /// Every span, primary ones included.
    pub spans: Vec<Span>,
    /// Notes and help attached to it.
    pub children: Vec<Diagnostic>,
}

impl Diagnostic {
    fn from_cargo(d: &cargo_metadata::diagnostic::Diagnostic) -> Diagnostic {
        Diagnostic {
            level: level_name(d.level).to_string(),
            message: d.message.clone(),
            code: d.code.as_ref().map(|c| c.code.clone()),
            rendered: d.rendered.clone(),
            spans: d.spans.iter().map(Span::from_cargo).collect(),
            children: d.children.iter().map(Diagnostic::from_cargo).collect(),
        }
    }

    /// The first primary span: where the error is.
    pub fn primary(&self) -> Option<&Span> {
        self.spans.iter().find(|s| s.primary)
    }
}

impl fmt::Display for Diagnostic {
    /// `error[E0308]: mismatched types at src/main.rs:3:18`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.level)?;
        if let Some(code) = &self.code {
            write!(f, "[{code}]")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(span) = self.primary() {
            // In another crate's file (a macro of approx's, ndarray's expanding there): the
            // package's own line that calls the macro, which the user can read.
            match span.call_site.as_deref().filter(|_| std::path::Path::new(&span.file).is_absolute()) {
                Some(call) => write!(f, " at {} (in the expansion of `{}`)", call.place(), span.macro_name.as_deref().unwrap_or("a macro"))?,
                None => write!(f, " at {}", span.place())?,
            }
        }
        Ok(())
    }
}

fn level_name(level: DiagnosticLevel) -> &'static str {
    match level {
        DiagnosticLevel::Ice => "error: internal compiler error",
        DiagnosticLevel::Error => "error",
        DiagnosticLevel::Warning => "warning",
        DiagnosticLevel::FailureNote => "failure-note",
        DiagnosticLevel::Note => "note",
        DiagnosticLevel::Help => "help",
        _ => "unknown",
    }
}

/// One compiled target, as cargo reported it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Artifact {
    /// The package's id, as cargo spells it.
    pub package_id: String,
    /// The target's name.
    pub target: String,
    /// The target's kinds (`lib`, `bin`, `example`, ...).
    pub kinds: Vec<String>,
    /// Whether cargo reused it without compiling (`fresh`): rebuilds are incremental when every
    /// target the change does not touch is fresh.
    pub fresh: bool,
    /// The executable, for a binary or an example.
    pub executable: Option<PathBuf>,
}

/// What a build gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildResult {
    /// cargo exited 0 and said the build finished successfully.
    pub success: bool,
    /// How cargo ended (a timed-out build is not a success).
    pub status: Status,
    /// The executable built for the requested target.
    pub executable: Option<PathBuf>,
    /// Every target compiled or reused, in cargo's order.
    pub artifacts: Vec<Artifact>,
    /// Errors (with their notes), in rustc's order.
    pub errors: Vec<Diagnostic>,
    /// How many warnings there were (their text is in the log).
    pub warnings: usize,
    /// The warnings that carry a code (lints, with their spans): the typing build reads its
    /// answers there.
    pub lints: Vec<Diagnostic>,
    /// cargo's own standard error (manifest and resolution errors are only there).
    pub stderr: String,
    /// How long it took.
    pub elapsed: Duration,
}

impl BuildResult {
    /// Why the build failed outside the code, where it did: the linker failed or was killed, a
    /// compiler process was killed (out of memory), the disk is full. Such a failure says
    /// nothing about the sources; [`build`] tries once more before it reports it.
    pub fn outside_the_code(&self) -> Option<String> {
        const SIGNS: [&str; 5] = ["linking with `", "could not exec the linker", "No space left on device", "(signal: 9", "SIGKILL"];
        let texts = self.errors.iter().map(|e| e.message.as_str()).chain(self.stderr.lines());
        texts.filter(|t| SIGNS.iter().any(|s| t.contains(s))).map(str::to_string).next()
    }

    /// One line saying why the build failed: the first rustc error with its place, else the
    /// first `error` line cargo printed, else how cargo ended.
    pub fn first_error(&self) -> String {
        if let Some(e) = self.errors.first() {
            return e.to_string();
        }
        if self.status == Status::TimedOut {
            return format!("the build timed out after {:.0} s", self.elapsed.as_secs_f64());
        }
        self.stderr
            .lines()
            .find(|l| l.starts_with("error"))
            .map(str::to_string)
            .unwrap_or_else(|| format!("cargo {}", self.status))
    }
}

/// What cargo's JSON messages say.
#[derive(Debug, Default)]
struct Messages {
    finished: Option<bool>,
    artifacts: Vec<Artifact>,
    errors: Vec<Diagnostic>,
    warnings: usize,
    lints: Vec<Diagnostic>,
    rendered: String,
    executable: Option<PathBuf>,
}

/// The errors (and internal compiler errors) in cargo's `--message-format=json` output, as
/// [`build`] reads them into [`BuildResult::errors`].
pub fn errors_in(stdout: &str) -> Vec<Diagnostic> {
    parse_messages(stdout, &BuildOptions::new("")).errors
}

/// Reads cargo's `--message-format=json` output.
fn parse_messages(stdout: &str, opts: &BuildOptions) -> Messages {
    let mut m = Messages::default();
    let mut default_bins = Vec::new();
    for message in Message::parse_stream(stdout.as_bytes()) {
        // Only a read error ends the stream early; there is none reading from memory.
        let Ok(message) = message else { break };
        match message {
            Message::CompilerArtifact(a) => {
                let wanted = match &opts.target {
                    Target::Bin(name) => a.target.name == *name && a.target.is_kind(TargetKind::Bin),
                    Target::Example(name) => a.target.name == *name && a.target.is_kind(TargetKind::Example),
                    Target::Default => false,
                };
                let executable = a.executable.as_ref().map(|p| p.clone().into_std_path_buf());
                if wanted && executable.is_some() {
                    m.executable.clone_from(&executable);
                }
                // cargo builds only the libraries of dependencies: every binary is the package's.
                if opts.target == Target::Default && executable.is_some() && a.target.is_kind(TargetKind::Bin)
                {
                    default_bins.push(executable.clone());
                }
                m.artifacts.push(Artifact {
                    package_id: a.package_id.repr.clone(),
                    target: a.target.name.clone(),
                    kinds: a.target.kind.iter().map(|k| k.to_string()).collect(),
                    fresh: a.fresh,
                    executable,
                });
            }
            Message::CompilerMessage(msg) => {
                let d = &msg.message;
                if let Some(r) = &d.rendered {
                    m.rendered.push_str(r);
                    if !r.ends_with('\n') {
                        m.rendered.push('\n');
                    }
                }
                match d.level {
                    DiagnosticLevel::Error | DiagnosticLevel::Ice => m.errors.push(Diagnostic::from_cargo(d)),
                    DiagnosticLevel::Warning => {
                        m.warnings += 1;
                        if d.code.is_some() {
                            m.lints.push(Diagnostic::from_cargo(d));
                        }
                    }
                    _ => {}
                }
            }
            Message::BuildFinished(f) => m.finished = Some(f.success),
            Message::TextLine(line) if !line.trim().is_empty() => {
                m.rendered.push_str(&line);
                m.rendered.push('\n');
            }
            _ => {}
        }
    }
    if m.executable.is_none() && default_bins.len() == 1 {
        m.executable = default_bins.pop().flatten();
    }
    m
}

/// Builds with `opts`, appending the command, cargo's output and every rendered diagnostic to
/// `log`. A build that fails or times out is `Ok` with `success == false`; `Err` means cargo
/// could not be run (or [`process::Interrupted`]).
pub fn build(opts: &BuildOptions, log: &Path) -> Result<BuildResult> {
    let cwd = match &opts.cwd {
        Some(dir) => dir.clone(),
        None => opts.manifest_path.parent().map(Path::to_path_buf).unwrap_or_default(),
    };
    // Builds share the process's job pool, which replaces `-j` (cargo takes its jobs from an
    // inherited jobserver and ignores `-j` then; the flag is dropped so that the log says so).
    let pooled = process::job_pool().is_some();
    let argv = if pooled { cargo_argv(&BuildOptions { jobs: None, ..opts.clone() }) } else { cargo_argv(opts) };
    let mut command = process::Command::new(cargo_program()).args(argv).log_stdout(false);
    if pooled {
        command = command.pooled();
    }
    if !cwd.as_os_str().is_empty() {
        command = command.cwd(cwd);
    }
    for (key, value) in &opts.env {
        command = command.env(key, value);
    }
    let first = build_once(opts, &command, log)?;
    match first.outside_the_code() {
        Some(why) if !first.success => {
            // A linker killed for memory, a full disk: tried again once, after a pause, and
            // reported as what it is if it fails again (docs/conversion.md, "Failures outside the code").
            log_line(log, &format!("# the build failed outside the code ({why}): tried once more"))?;
            std::thread::sleep(Duration::from_secs(2));
            build_once(opts, &command, log)
        }
        _ => Ok(first),
    }
}

fn log_line(log: &Path, line: &str) -> Result<()> {
    let mut file = OpenOptions::new().append(true).create(true).open(log).with_context(|| format!("could not open the log {}", log.display()))?;
    writeln!(file, "{line}").with_context(|| format!("could not write to the log {}", log.display()))
}

fn build_once(opts: &BuildOptions, command: &process::Command, log: &Path) -> Result<BuildResult> {
    let run = process::run(command, opts.timeout, log)?;
    let messages = parse_messages(&run.stdout, opts);
    if !messages.rendered.is_empty() {
        let mut file = OpenOptions::new()
            .append(true)
            .open(log)
            .with_context(|| format!("could not open the log {}", log.display()))?;
        writeln!(file, "# compiler messages\n{}", messages.rendered)
            .with_context(|| format!("could not write to the log {}", log.display()))?;
    }
    let success = run.status.success() && messages.finished.unwrap_or(true);
    Ok(BuildResult {
        success,
        status: run.status,
        executable: messages.executable.filter(|_| success),
        artifacts: messages.artifacts,
        errors: messages.errors,
        warnings: messages.warnings,
        lints: messages.lints,
        stderr: run.stderr,
        elapsed: run.elapsed,
    })
}

/// `cargo metadata` for the package at `manifest_path` (with `--no-deps` when `no_deps`: much
/// faster, and enough for the package's targets, workspace root and target directory).
pub fn metadata(manifest_path: &Path, no_deps: bool) -> Result<cargo_metadata::Metadata> {
    let mut command = cargo_metadata::MetadataCommand::new();
    command.cargo_path(cargo_program()).manifest_path(manifest_path);
    if no_deps {
        command.no_deps();
    }
    command.exec().with_context(|| {
        format!(
            "`cargo metadata` failed for {}: does `cargo build --manifest-path {0}` work?",
            manifest_path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_error_in_another_crates_macro_is_placed_at_the_users_call() {
        let call = Span { file: "src/main.rs".into(), line: 14, column: 5, line_end: 14, column_end: 40, primary: false, label: None, macro_name: None, byte_start: None, byte_end: None, call_site: None };
        let inside = Span {
            file: "/root/.cargo/registry/src/index/approx-0.5.1/src/macros.rs".into(),
            primary: true,
            macro_name: Some("assert_relative_eq!".into()),
            call_site: Some(Box::new(call.clone())),
            ..call.clone()
        };
        let d = Diagnostic { level: "error".into(), message: "mismatched types".into(), code: Some("E0308".into()), rendered: None, spans: vec![inside], children: Vec::new() };
        assert_eq!(d.to_string(), "error[E0308]: mismatched types at src/main.rs:14:5 (in the expansion of `assert_relative_eq!`)");
        let own = Diagnostic { spans: vec![Span { primary: true, ..call }], ..d };
        assert_eq!(own.to_string(), "error[E0308]: mismatched types at src/main.rs:14:5");
    }

    use super::*;
    use pretty_assertions::assert_eq;

    fn argv(opts: &BuildOptions) -> String {
        cargo_argv(opts).join(" ")
    }

    #[test]
    fn a_linker_or_memory_failure_is_told_apart_from_an_error_in_the_code() {
        let failed = |message: &str, stderr: &str| BuildResult {
            success: false,
            status: process::Status::Exited(101),
            executable: None,
            artifacts: vec![],
            errors: vec![Diagnostic { level: "error".into(), message: message.into(), code: None, rendered: None, spans: vec![], children: vec![] }],
            warnings: 0,
            lints: vec![],
            stderr: stderr.into(),
            elapsed: Duration::ZERO,
        };
        assert_eq!(failed("linking with `cc` failed: exit status: 1", "").outside_the_code().as_deref(), Some("linking with `cc` failed: exit status: 1"));
        let killed = "error: could not compile `nalgebra` (lib)\n\nCaused by:\n  process didn't exit successfully: `rustc ...` (signal: 9, SIGKILL: kill)";
        assert!(failed("", killed).outside_the_code().expect("killed").contains("signal: 9"));
        assert_eq!(failed("mismatched types", "error: could not compile `x`").outside_the_code(), None);
    }

    #[test]
    fn the_target_cpu_is_appended_to_the_users_flags_wherever_cargo_takes_them() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |key: &str| vars.iter().find(|(k, _)| *k == key).map(|(_, v)| v.to_string())
        };
        // No flags in the environment: a config setting, which cargo joins with the files'.
        assert_eq!(target_cpu("native", env(&[])), (vec![], vec![r#"build.rustflags=["-C", "target-cpu=native"]"#.to_string()]));
        // RUSTFLAGS replaces every config file's flags: appended to.
        assert_eq!(
            target_cpu("znver4", env(&[("RUSTFLAGS", "--cfg x")])),
            (vec![("RUSTFLAGS".to_string(), "--cfg x -C target-cpu=znver4".to_string())], vec![])
        );
        assert_eq!(target_cpu("native", env(&[("RUSTFLAGS", "")])).0, vec![("RUSTFLAGS".to_string(), "-C target-cpu=native".to_string())]);
        // The encoded form wins over RUSTFLAGS, as in cargo.
        assert_eq!(
            target_cpu("native", env(&[("RUSTFLAGS", "--cfg x"), ("CARGO_ENCODED_RUSTFLAGS", "--cfg\x1fy z")])),
            (vec![("CARGO_ENCODED_RUSTFLAGS".to_string(), "--cfg\x1fy z\x1f-C\x1ftarget-cpu=native".to_string())], vec![])
        );
        assert_eq!(
            target_cpu("native", env(&[("CARGO_ENCODED_RUSTFLAGS", "")])).0,
            vec![("CARGO_ENCODED_RUSTFLAGS".to_string(), "-C\x1ftarget-cpu=native".to_string())]
        );
    }

    #[test]
    fn flags_added_twice_are_one_setting_with_both() {
        let mut opts = BuildOptions::new("Cargo.toml");
        opts.add_rustflags(&[DIAGNOSTIC_WIDTH]);
        opts.add_target_cpu("native");
        let both = [DIAGNOSTIC_WIDTH, "-C", "target-cpu=native"];
        match (std::env::var("CARGO_ENCODED_RUSTFLAGS").ok(), std::env::var("RUSTFLAGS").ok()) {
            (None, None) => {
                assert!(opts.env.is_empty(), "{:?}", opts.env);
                assert_eq!(opts.config, vec![format!("build.rustflags=[{}]", both.map(|f| format!("{f:?}")).join(", "))]);
            }
            // Where the tests run with flags of their own, one variable holds theirs and both.
            _ => {
                assert_eq!(opts.env.len(), 1, "{:?}", opts.env);
                assert!(opts.env[0].1.ends_with(&both.join(if opts.env[0].0 == "RUSTFLAGS" { " " } else { "\x1f" })), "{:?}", opts.env);
                assert!(opts.config.is_empty());
            }
        }
    }

    #[test]
    fn a_target_set_in_a_config_file_or_the_environment_is_found() {
        let dir = tempfile::tempdir().expect("a directory");
        let (home, package) = (dir.path().join("home"), dir.path().join("work/app"));
        std::fs::create_dir_all(&package).expect("the package");
        std::fs::create_dir_all(&home).expect("cargo's home");
        assert!(!target_configured(&package, Some(&home), None));
        assert!(target_configured(&package, Some(&home), Some("x86_64-unknown-linux-musl")));
        assert!(!target_configured(&package, Some(&home), Some("")));
        // Other build settings are not a target.
        std::fs::create_dir_all(dir.path().join("work/.cargo")).expect(".cargo");
        std::fs::write(dir.path().join("work/.cargo/config.toml"), "[build]\njobs = 2\n").expect("config");
        assert!(!target_configured(&package, Some(&home), None));
        // In an ancestor's config, or in cargo's home (the old file name too).
        std::fs::write(dir.path().join("work/.cargo/config.toml"), "build.target = \"wasm32-wasip1\"\n").expect("config");
        assert!(target_configured(&package, Some(&home), None));
        std::fs::remove_file(dir.path().join("work/.cargo/config.toml")).expect("removed");
        std::fs::write(home.join("config"), "[build]\ntarget = \"x86_64-unknown-linux-musl\"\n").expect("config");
        assert!(target_configured(&package, Some(&home), None));
    }

    #[test]
    fn the_default_build_names_only_the_manifest() {
        let opts = BuildOptions::new("/s/app/Cargo.toml");
        assert_eq!(argv(&opts), "build --message-format=json --manifest-path /s/app/Cargo.toml");
    }

    #[test]
    fn a_stochastic_release_build_of_a_binary_has_every_flag_in_order() {
        let opts = BuildOptions {
            target: Target::Bin("det".into()),
            triple: Some("x86_64-unknown-linux-gnu".into()),
            profile: Profile::Release,
            stochastic: true,
            target_dir: Some("/s/target".into()),
            quiet: true,
            ansi: true,
            ..BuildOptions::new("/s/app/Cargo.toml")
        };
        assert_eq!(
            cargo_argv(&opts),
            [
                "build",
                "--message-format=json-diagnostic-rendered-ansi",
                "--manifest-path",
                "/s/app/Cargo.toml",
                "--bin",
                "det",
                "--target",
                "x86_64-unknown-linux-gnu",
                "--release",
                "--features",
                "fptune/stochastic",
                "--target-dir",
                "/s/target",
                "--quiet",
            ]
        );
    }

    #[test]
    fn candidate_overrides_change_only_the_package_and_come_last() {
        let opts = BuildOptions {
            profile: Profile::Release,
            config: candidate_overrides("release", "my-app", true),
            ..BuildOptions::new("/s/app/Cargo.toml")
        };
        let argv = cargo_argv(&opts);
        assert_eq!(
            argv[argv.len() - 4..],
            [
                "--config",
                "profile.release.package.\"my-app\".debug=0",
                "--config",
                "profile.release.package.\"my-app\".opt-level=0",
            ]
        );
        assert_eq!(candidate_overrides("release", "my-app", false), ["profile.release.package.\"my-app\".debug=0"]);
    }

    #[test]
    fn an_example_with_a_named_profile_and_user_features_joins_the_features() {
        let opts = BuildOptions {
            package: Some("app".into()),
            target: Target::Example("cg".into()),
            profile: Profile::Named("bench".into()),
            stochastic: true,
            features: vec!["simd".into(), "fptune/stochastic".into()],
            no_default_features: true,
            offline: true,
            jobs: Some(1),
            ..BuildOptions::new("Cargo.toml")
        };
        assert_eq!(
            argv(&opts),
            "build --message-format=json --manifest-path Cargo.toml -p app --example cg --profile bench \
             --features simd,fptune/stochastic --no-default-features --offline -j 1"
        );
    }

    #[test]
    fn a_native_build_with_user_features_has_no_stochastic_feature() {
        let opts = BuildOptions { features: vec!["simd".into()], ..BuildOptions::new("Cargo.toml") };
        assert_eq!(argv(&opts), "build --message-format=json --manifest-path Cargo.toml --features simd");
    }

    const ERROR_JSON: &str = r#"{"reason":"compiler-message","package_id":"path+file:///s/app#0.1.0","manifest_path":"/s/app/Cargo.toml","target":{"kind":["bin"],"crate_types":["bin"],"name":"app","src_path":"/s/app/src/main.rs","edition":"2021","doc":true,"doctest":false,"test":true},"message":{"rendered":"error[E0308]: mismatched types\n --> src/main.rs:2:18\n","$message_type":"diagnostic","children":[{"children":[],"code":null,"level":"note","message":"expected due to this","rendered":null,"spans":[]}],"code":{"code":"E0308","explanation":"..."},"level":"error","message":"mismatched types","spans":[{"byte_end":40,"byte_start":35,"column_end":23,"column_start":18,"expansion":null,"file_name":"src/main.rs","is_primary":true,"label":"expected `f64`, found `f32`","line_end":2,"line_start":2,"suggested_replacement":null,"suggestion_applicability":null,"text":[]},{"byte_end":30,"byte_start":27,"column_end":15,"column_start":12,"expansion":null,"file_name":"src/main.rs","is_primary":false,"label":"expected due to this","line_end":2,"line_start":2,"suggested_replacement":null,"suggestion_applicability":null,"text":[]}]}}
{"reason":"build-finished","success":false}
"#;

    #[test]
    fn an_error_message_becomes_a_diagnostic_with_its_place_and_labels() {
        let m = parse_messages(ERROR_JSON, &BuildOptions::new("/s/app/Cargo.toml"));
        assert_eq!(m.finished, Some(false));
        assert_eq!(m.errors.len(), 1);
        let e = &m.errors[0];
        assert_eq!(e.to_string(), "error[E0308]: mismatched types at src/main.rs:2:18");
        assert_eq!(e.primary().and_then(|s| s.label.as_deref()), Some("expected `f64`, found `f32`"));
        assert_eq!(e.spans.len(), 2);
        assert_eq!(e.children[0].level, "note");
        assert!(m.rendered.starts_with("error[E0308]: mismatched types\n --> src/main.rs:2:18\n"));
    }

    const ARTIFACTS_JSON: &str = r#"{"reason":"compiler-artifact","package_id":"path+file:///s/helper#0.1.0","manifest_path":"/s/helper/Cargo.toml","target":{"kind":["lib"],"crate_types":["lib"],"name":"helper","src_path":"/s/helper/src/lib.rs","edition":"2021","doc":true,"doctest":true,"test":true},"profile":{"opt_level":"0","debuginfo":2,"debug_assertions":true,"overflow_checks":true,"test":false},"features":[],"filenames":["/t/debug/deps/libhelper.rlib"],"executable":null,"fresh":true}
{"reason":"compiler-artifact","package_id":"path+file:///s/app#0.1.0","manifest_path":"/s/app/Cargo.toml","target":{"kind":["bin"],"crate_types":["bin"],"name":"app","src_path":"/s/app/src/main.rs","edition":"2021","doc":true,"doctest":false,"test":true},"profile":{"opt_level":"0","debuginfo":2,"debug_assertions":true,"overflow_checks":true,"test":false},"features":[],"filenames":["/t/debug/app"],"executable":"/t/debug/app","fresh":false}
{"reason":"build-finished","success":true}
"#;

    #[test]
    fn the_executable_is_the_requested_binary_or_else_the_only_one() {
        let default = parse_messages(ARTIFACTS_JSON, &BuildOptions::new("/s/app/Cargo.toml"));
        assert_eq!(default.executable, Some(PathBuf::from("/t/debug/app")));
        let named = BuildOptions { target: Target::Bin("app".into()), ..BuildOptions::new("/elsewhere") };
        assert_eq!(parse_messages(ARTIFACTS_JSON, &named).executable, Some(PathBuf::from("/t/debug/app")));
        let other =
            BuildOptions { target: Target::Example("app".into()), ..BuildOptions::new("/s/app/Cargo.toml") };
        assert_eq!(parse_messages(ARTIFACTS_JSON, &other).executable, None);
        let fresh: Vec<_> = default.artifacts.iter().map(|a| (a.target.as_str(), a.fresh)).collect();
        assert_eq!(fresh, [("helper", true), ("app", false)]);
        assert_eq!(default.artifacts[1].kinds, ["bin"]);
    }
}
