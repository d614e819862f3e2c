//! Running a child process: cargo builds and candidate runs.
//!
//! Every child runs with stdin null, in its own process group, so that a timeout or Ctrl-C can
//! stop it *and everything it spawned* (a candidate that forks helpers, cargo's rustc jobs). Its
//! standard output and error are read on two threads, so a chatty child never blocks on a full
//! pipe, captured in memory and appended to a log file as they arrive (a hanging candidate's log
//! can be followed with `tail -f`).
//!
//! When the child exits, when it times out, or when the run is interrupted, the whole group is
//! killed (`SIGTERM`, then `SIGKILL` after [`TERM_GRACE`]) *before* the child is reaped: while
//! the child is an unreaped zombie its process id, which is also the group id, cannot be reused,
//! so the signal never reaches an unrelated group. The child is always reaped: no zombies.
//!
//! A global *interrupted* flag, set by the Ctrl-C handler ([`install_ctrlc_handler`]) or by
//! [`interrupt`], makes [`run`] stop its child and return an [`Interrupted`] error.
//!
//! On Linux a child also dies with fptune (`PR_SET_PDEATHSIG`): killed with `SIGKILL`, fptune
//! cannot stop its children, and a hanging candidate would otherwise run on with no timeout.
//!
//! Unix only (process groups and signals).

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

mod interrupt;

use self::interrupt::{cancelled, live_groups, signal_group};
pub use self::interrupt::{cancellable, check_interrupted, install_ctrlc_handler, interrupt, interrupted, is_cancelled, is_interrupted, Cancelled, Interrupted};

/// How long a process group gets to exit after `SIGTERM` before it is sent `SIGKILL`.
pub const TERM_GRACE: Duration = Duration::from_millis(500);

/// The longest wait between two checks of a running child (the first checks are quicker, so a
/// short run costs little latency).
const MAX_POLL_INTERVAL: Duration = Duration::from_millis(20);

/// How long to wait for the output pipes to close once the child's group is gone. Only a
/// grandchild that left the group (`setsid`) and kept the pipe open makes this wait run out.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

/// How much of each stream is kept in memory; beyond it the oldest half is dropped (the log file
/// keeps its own head and tail: [`LOG_HEAD`], [`LOG_TAIL`]).
const MAX_CAPTURE: usize = 32 << 20;

/// How much of a run's output its log gets as it arrives; past it, only the last [`LOG_TAIL`]
/// bytes are kept, written when the run ends after a line saying how much was left out (a
/// candidate printing gigabytes filled the disk).
pub const LOG_HEAD: usize = 8 << 20;

/// How much of the end of a long output the log keeps.
pub const LOG_TAIL: usize = 1 << 20;

/// The job tokens every cargo build of this process shares: a jobserver (the protocol of GNU
/// make, which cargo and rustc speak) with one token fewer than the machine has cores, since each
/// cargo holds one of its own. One build alone then uses every core, and builds of several
/// workers at once share them, where a fixed `-j cores/workers` left cores idle whenever one
/// worker built alone (the probe, the DSA reference, the single builds). A jobserver this process
/// inherited (fptune run by make, say) is used as it is. `None` where neither could be had, or on
/// a machine with one core (each build then runs one job, as `-j 1` would).
pub fn job_pool() -> Option<&'static jobserver::Client> {
    static POOL: OnceLock<Option<jobserver::Client>> = OnceLock::new();
    POOL.get_or_init(|| {
        // SAFETY: called once, before any file descriptor could be closed or reused by this
        // process's own code; the descriptors named in MAKEFLAGS are checked by the crate.
        if let Some(inherited) = unsafe { jobserver::Client::from_env() } {
            return Some(inherited);
        }
        let cores = thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        (cores > 1).then(|| jobserver::Client::new(cores - 1).ok()).flatten()
    })
    .as_ref()
}

/// A command to run: program, arguments, environment and working directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// The program, found on `PATH` when it has no `/`.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Environment changes on top of this process's environment: `Some` sets, `None` removes.
    pub env: Vec<(OsString, Option<OsString>)>,
    /// The working directory (this process's when `None`).
    pub cwd: Option<PathBuf>,
    /// Whether standard output is copied to the log as well as captured (cargo's JSON messages
    /// are not: [`crate::cargo::build`] writes their rendered text instead).
    pub log_stdout: bool,
    /// Whether the child shares [`job_pool`]'s tokens (cargo builds do; candidate runs do not).
    pub pooled: bool,
}

impl Command {
    /// `program` with no arguments, this process's environment and working directory.
    pub fn new(program: impl Into<OsString>) -> Command {
        Command { program: program.into(), args: Vec::new(), env: Vec::new(), cwd: None, log_stdout: true, pooled: false }
    }

    /// Adds an argument.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Command {
        self.args.push(arg.into());
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Command {
        self.env.push((key.into(), Some(value.into())));
        self
    }

    /// Removes an environment variable.
    pub fn env_remove(mut self, key: impl Into<OsString>) -> Command {
        self.env.push((key.into(), None));
        self
    }

    /// Sets the working directory.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Command {
        self.cwd = Some(dir.into());
        self
    }

    /// Whether standard output is copied to the log (it always is captured).
    pub fn log_stdout(mut self, yes: bool) -> Command {
        self.log_stdout = yes;
        self
    }

    /// Lets the child take its jobs from [`job_pool`] (a jobserver cargo and rustc read from
    /// `CARGO_MAKEFLAGS`), where there is one.
    pub fn pooled(mut self) -> Command {
        self.pooled = true;
        self
    }

    /// The command line, quoted as a shell would need it (for logs and error messages).
    pub fn display(&self) -> String {
        let mut words = Vec::new();
        for (key, value) in &self.env {
            match value {
                Some(v) => words.push(format!("{}={}", key.to_string_lossy(), quote(v))),
                None => words.push(format!("-u {}", key.to_string_lossy())),
            }
        }
        if !words.is_empty() {
            words.insert(0, "env".to_string());
        }
        words.push(quote(&self.program));
        words.extend(self.args.iter().map(|a| quote(a)));
        words.join(" ")
    }
}

/// Quotes one word for a POSIX shell when it needs it.
fn quote(word: &OsStr) -> String {
    let s = word.to_string_lossy();
    let plain = !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// How a child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// It exited with this code.
    Exited(i32),
    /// A signal killed it (not ours: see [`Status::TimedOut`]).
    Signaled(i32),
    /// It ran past its timeout and its process group was killed.
    TimedOut,
}

impl Status {
    /// Whether it exited with code 0.
    pub fn success(self) -> bool {
        self == Status::Exited(0)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Exited(code) => write!(f, "exited with code {code}"),
            Status::Signaled(signal) => write!(f, "killed by signal {signal}"),
            Status::TimedOut => f.write_str("timed out"),
        }
    }
}

/// What a process gave (its status, output and time): not a candidate run's result ([`crate::model::RunResult`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessOutput {
    /// How the child ended.
    pub status: Status,
    /// Its standard output (invalid UTF-8 replaced; only the last [`MAX_CAPTURE`] bytes or so
    /// of a huge output).
    pub stdout: String,
    /// Its standard error (same).
    pub stderr: String,
    /// Wall time from spawn to reaping.
    pub elapsed: Duration,
}

impl ProcessOutput {
    /// The end of standard error, at most about `max_bytes`, starting at a line boundary when
    /// one is near: what a report shows of a crash (a panic message and its location).
    pub fn stderr_tail(&self, max_bytes: usize) -> String {
        tail(&self.stderr, max_bytes)
    }
}

/// The last `max_bytes` of `text` (cut at a char boundary, then at the next line start if that
/// drops less than half of it), without trailing whitespace.
fn tail(text: &str, max_bytes: usize) -> String {
    let text = &printable(text.trim_end());
    if text.len() <= max_bytes {
        return text.to_string();
    }
    let mut start = text.len() - max_bytes;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let mut cut = &text[start..];
    if let Some(nl) = cut.find('\n') {
        if nl < cut.len() / 2 {
            cut = &cut[nl + 1..];
        }
    }
    cut.to_string()
}

/// `text` with the terminal's control sequences a program may print (colours, cursor moves,
/// titles) removed and any other control character but newline and tab shown as `\u{..}`: what
/// fptune shows of a program's output on the terminal and in report.md must not act on either.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.peek() {
                // CSI: parameters and intermediates up to a final byte in @..~.
                Some('[') => {
                    chars.next();
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC: up to BEL or ESC \\.
                Some(']') => {
                    chars.next();
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {
                    chars.next();
                }
            },
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}
/// A capture buffer shared with a reader thread.
#[derive(Debug, Default)]
struct Capture {
    bytes: Vec<u8>,
}

impl Capture {
    fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > MAX_CAPTURE {
            self.bytes.drain(..self.bytes.len() - MAX_CAPTURE / 2);
        }
    }
}

/// A run's log: the file, and what of the output past [`LOG_HEAD`] is held for its tail.
#[derive(Debug)]
struct LogSink {
    file: File,
    /// Output bytes of this run written to the file so far.
    written: usize,
    /// The last output bytes past the head (at most about 2 x [`LOG_TAIL`] before trimming).
    tail: Vec<u8>,
    /// Output bytes neither written nor held.
    dropped: u64,
}

impl LogSink {
    /// Takes a chunk of the child's output.
    fn output(&mut self, chunk: &[u8]) {
        let head = chunk.len().min(LOG_HEAD.saturating_sub(self.written));
        if head > 0 {
            // A full disk must not stop the run; the capture still has it.
            let _ = self.file.write_all(&chunk[..head]);
            self.written += head;
        }
        self.tail.extend_from_slice(&chunk[head..]);
        if self.tail.len() > 2 * LOG_TAIL {
            let cut = self.tail.len() - LOG_TAIL;
            self.dropped += cut as u64;
            self.tail.drain(..cut);
        }
    }

    /// Writes the held tail, after a line saying how much was left out.
    fn finish(&mut self) -> io::Result<()> {
        if self.tail.len() > LOG_TAIL {
            let cut = self.tail.len() - LOG_TAIL;
            self.dropped += cut as u64;
            self.tail.drain(..cut);
        }
        if self.dropped > 0 {
            writeln!(
                self.file,
                "\n# [{} bytes of output left out: the log keeps the first {} MiB and the last {} MiB]",
                self.dropped,
                LOG_HEAD >> 20,
                LOG_TAIL >> 20
            )?;
        }
        let tail = std::mem::take(&mut self.tail);
        self.file.write_all(&tail)
    }
}

impl Write for LogSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

type SharedLog = Arc<Mutex<LogSink>>;

/// Locks `mutex`, also when a thread panicked holding it (the data stays usable).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Reads `source` to its end on a new thread into `capture`, copying to `log` if given; sends on
/// `done` when finished.
fn spawn_reader(
    mut source: impl Read + Send + 'static,
    capture: Arc<Mutex<Capture>>,
    log: Option<SharedLog>,
    done: mpsc::Sender<()>,
) -> Result<()> {
    thread::Builder::new()
        .name("fptune-output".into())
        .spawn(move || {
            let mut buf = vec![0u8; 64 << 10];
            loop {
                match source.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        lock(&capture).push(&buf[..n]);
                        if let Some(log) = &log {
                            lock(log).output(&buf[..n]);
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = done.send(());
        })
        .context("could not start a thread to read a child's output")?;
    Ok(())
}

/// Whether the child `pid` has exited, without reaping it (so its process group id stays ours).
fn has_exited(pid: libc::pid_t) -> io::Result<bool> {
    // SAFETY: siginfo_t is plain data, valid when zeroed; waitid writes into it. WNOWAIT leaves
    // the child waitable, so std's `Child::wait` still reaps it later.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let rc = libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(info.si_pid() != 0)
    }
}

/// Waits until the child exits or `deadline` passes; returns whether it exited.
fn wait_until(pid: libc::pid_t, deadline: Instant) -> io::Result<bool> {
    let mut interval = Duration::from_millis(1);
    loop {
        if has_exited(pid)? {
            return Ok(true);
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(false);
        }
        thread::sleep(interval.min(deadline - now));
        interval = (interval * 2).min(MAX_POLL_INTERVAL);
    }
}

/// Stops the child's group: `SIGTERM`, up to [`TERM_GRACE`] for the leader to exit, then
/// `SIGKILL` for whatever is left (a grandchild that ignored `SIGTERM` included).
fn stop_group(pid: libc::pid_t) {
    signal_group(pid, libc::SIGTERM);
    let _ = wait_until(pid, Instant::now() + TERM_GRACE);
    signal_group(pid, libc::SIGKILL);
}

/// Runs `command` to its end or for at most `timeout`, capturing its output and appending it to
/// `log` (created with its parent directories if missing) between a header line (the command)
/// and a footer line (how it ended).
///
/// Returns `Ok` however the child ended, including [`Status::TimedOut`]; `Err` when it could
/// not be started or the log not written, [`Interrupted`] when the run was interrupted before or
/// during it, and [`Cancelled`] when the thread's cancel flag ([`cancellable`]) was set (the child
/// is then already stopped).
pub fn run(command: &Command, timeout: Duration, log: &Path) -> Result<ProcessOutput> {
    check_interrupted()?;
    if cancelled() {
        return Err(Cancelled.into());
    }
    let log_file = open_log(log)?;
    writeln!(lock(&log_file), "$ {}", command.display())
        .with_context(|| format!("could not write to the log {}", log.display()))?;

    let mut std_command = std::process::Command::new(&command.program);
    std_command
        .args(&command.args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    for (key, value) in &command.env {
        match value {
            Some(v) => std_command.env(key, v),
            None => std_command.env_remove(key),
        };
    }
    if let Some(cwd) = &command.cwd {
        std_command.current_dir(cwd);
    }
    #[cfg(target_os = "linux")]
    {
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: prctl, getppid and _exit are async-signal-safe, as a child between fork and
        // exec requires, and touch no memory of the parent.
        unsafe {
            std_command.pre_exec(move || {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                // fptune died before the line above: nothing would kill this child later.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    if command.pooled {
        if let Some(pool) = job_pool() {
            pool.configure(&mut std_command);
        }
    }

    let start = Instant::now();
    let mut child = {
        // Spawn and register under the registry's lock so the Ctrl-C handler sees every group.
        let mut groups = live_groups();
        let child = std_command.spawn().with_context(|| format!("could not start `{}`: {}", command.display(), spawn_hint(command)))?;
        groups.insert(child.id() as libc::pid_t);
        child
    };
    let pid = child.id() as libc::pid_t;

    let outcome = supervise(&mut child, pid, command, timeout, &log_file, start);
    // However supervision went, the group is dead now or gets killed here, and the child is
    // reaped, leaving the registry first.
    signal_group(pid, libc::SIGKILL);
    live_groups().remove(&pid);
    let exit = child.wait();
    let elapsed = start.elapsed();
    let (timed_out, stdout, stderr) = outcome?;
    let exit = exit.with_context(|| format!("could not wait for `{}`", command.display()))?;

    let status = if timed_out {
        Status::TimedOut
    } else if let Some(signal) = exit.signal() {
        Status::Signaled(signal)
    } else {
        // Neither a signal nor a code cannot happen for an exited child on Unix.
        Status::Exited(exit.code().unwrap_or(-1))
    };
    if interrupted() && !status.success() {
        // It was most likely killed by the Ctrl-C handler: its status says nothing.
        return Err(Interrupted.into());
    }
    let mut file = lock(&log_file);
    file.finish().with_context(|| format!("could not write to the log {}", log.display()))?;
    let footer = match status {
        Status::TimedOut => format!("# timed out after {:.1} s; process group killed", timeout.as_secs_f64()),
        other => format!("# {other} after {:.2} s", elapsed.as_secs_f64()),
    };
    writeln!(file, "\n{footer}").with_context(|| format!("could not write to the log {}", log.display()))?;
    Ok(ProcessOutput { status, stdout, stderr, elapsed })
}

/// What to check when `command` could not be started: a program named by a path (a binary
/// fptune built) that is gone, or one looked up on `PATH`.
fn spawn_hint(command: &Command) -> String {
    let program = Path::new(&command.program);
    if program.components().count() > 1 {
        let program = command.cwd.as_deref().map_or_else(|| program.to_path_buf(), |cwd| cwd.join(program));
        if !program.exists() {
            return format!("{} does not exist (was it removed while fptune ran?)", program.display());
        }
        return format!("is {} an executable for this machine?", program.display());
    }
    "is it installed and on PATH?".to_string()
}

/// Reads the child's output and watches it until it exits, times out or the run is interrupted.
/// Returns whether it timed out, and its output. The child is never reaped here.
fn supervise(
    child: &mut Child,
    pid: libc::pid_t,
    command: &Command,
    timeout: Duration,
    log: &SharedLog,
    start: Instant,
) -> Result<(bool, String, String)> {
    let (done_tx, done_rx) = mpsc::channel();
    let out = Arc::new(Mutex::new(Capture::default()));
    let err = Arc::new(Mutex::new(Capture::default()));
    let mut readers = 0;
    if let Some(stdout) = child.stdout.take() {
        let log = command.log_stdout.then(|| Arc::clone(log));
        spawn_reader(stdout, Arc::clone(&out), log, done_tx.clone())?;
        readers += 1;
    }
    if let Some(stderr) = child.stderr.take() {
        spawn_reader(stderr, Arc::clone(&err), Some(Arc::clone(log)), done_tx)?;
        readers += 1;
    }

    let deadline = start + timeout;
    let mut interval = Duration::from_millis(1);
    let timed_out = loop {
        if has_exited(pid).context("could not check on a child process")? {
            break false;
        }
        if interrupted() {
            stop_group(pid);
            return Err(Interrupted.into());
        }
        if cancelled() {
            stop_group(pid);
            return Err(Cancelled.into());
        }
        let now = Instant::now();
        if now >= deadline {
            stop_group(pid);
            break true;
        }
        thread::sleep(interval.min(deadline - now));
        interval = (interval * 2).min(MAX_POLL_INTERVAL);
    };
    // Whatever the child left running in its group would keep the pipes open: kill it (the
    // child itself is a zombie until reaped, so the group id is still ours).
    signal_group(pid, libc::SIGKILL);
    let drain_deadline = Instant::now() + DRAIN_TIMEOUT;
    for _ in 0..readers {
        let left = drain_deadline.saturating_duration_since(Instant::now());
        if done_rx.recv_timeout(left).is_err() {
            // A process that left the group holds a pipe: keep what was read so far.
            break;
        }
    }
    let text = |c: &Mutex<Capture>| String::from_utf8_lossy(&lock(c).bytes).into_owned();
    Ok((timed_out, text(&out), text(&err)))
}

/// Opens `path` for appending, creating it and its parent directories.
fn open_log(path: &Path) -> Result<SharedLog> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("could not create the log directory {}", parent.display()))?;
    }
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("could not open the log {}", path.display()))?;
    Ok(Arc::new(Mutex::new(LogSink { file, written: 0, tail: Vec::new(), dropped: 0 })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_programs_escape_sequences_do_not_reach_the_terminal() {
        let text = "\u{1b}[31mred\u{1b}[0m and \u{1b}]0;title\u{7}bell\u{7}, \u{1b}]8;;x\u{1b}\\link\rcr\n\tend";
        assert_eq!(printable(text), "red and bell\\u{7}, link\\u{d}cr\n\tend");
        assert_eq!(tail("ok\u{1b}[2J", 100), "ok");
    }

    #[test]
    fn a_command_line_is_quoted_for_a_shell() {
        let cmd = Command::new("cargo")
            .args(["build", "--features", "fptune/stochastic", "it's here", ""])
            .env(fptune::contract::OUT_ENV, "/tmp/a b")
            .env_remove("RUSTFLAGS");
        assert_eq!(
            cmd.display(),
            r"env FPTUNE_OUT='/tmp/a b' -u RUSTFLAGS cargo build --features fptune/stochastic 'it'\''s here' ''"
        );
    }

    #[test]
    fn the_stderr_tail_starts_at_a_line_when_one_is_near() {
        let text = "first line\nsecond line\nthread 'main' panicked at src/main.rs:3:5\n";
        assert_eq!(tail(text, 1000), text.trim_end());
        assert_eq!(tail(text, 50), "thread 'main' panicked at src/main.rs:3:5");
        assert_eq!(tail("aaaaaaaaaaé", 2), "é");
    }

    #[test]
    fn a_capture_keeps_the_end_of_a_huge_output() {
        let mut c = Capture::default();
        c.push(&vec![b'a'; MAX_CAPTURE]);
        c.push(b"end");
        assert!(c.bytes.len() <= MAX_CAPTURE);
        assert!(c.bytes.ends_with(b"aend"));
    }

    #[test]
    fn statuses_say_how_a_child_ended() {
        assert!(Status::Exited(0).success());
        assert!(!Status::Exited(101).success());
        assert_eq!(Status::Signaled(9).to_string(), "killed by signal 9");
        assert_eq!(Status::TimedOut.to_string(), "timed out");
    }
}
