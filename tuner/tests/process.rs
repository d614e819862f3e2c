//! Child processes: timeouts kill whole process groups, crashes report their exit and stderr.

mod common;

use std::fs;
use std::time::Duration;

use cargo_fptune::process::{self, Command, Status, TERM_GRACE};

fn first_line_pid(stdout: &str) -> u32 {
    stdout.lines().next().and_then(|l| l.trim().parse().ok()).expect("the program printed a pid")
}

#[test]
fn a_hanging_program_is_killed_at_the_timeout_along_with_the_child_it_spawned() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("hang.log");
    let timeout = Duration::from_millis(800);
    let result = process::run(&Command::new(common::programs()).arg("hang"), timeout, &log).expect("runs");
    assert_eq!(result.status, Status::TimedOut);
    assert!(result.elapsed >= timeout && result.elapsed < timeout + TERM_GRACE + Duration::from_secs(2));
    let sleeper = first_line_pid(&result.stdout);
    assert!(common::process_is_gone(sleeper), "the grandchild `sleep 1000` ({sleeper}) still runs");
    let text = fs::read_to_string(&log).expect("log");
    assert!(text.contains("# timed out after 0.8 s; process group killed"), "{text}");
}

#[test]
fn a_cancelled_run_is_stopped_with_its_group_and_later_runs_refuse_to_start() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().expect("temp dir");
    let flag = Arc::new(AtomicBool::new(false));
    let setter = {
        let flag = Arc::clone(&flag);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            flag.store(true, Ordering::Relaxed);
        })
    };
    let command = Command::new("sh").args(["-c", "sleep 1000 & echo $!; wait"]);
    let started = std::time::Instant::now();
    let error = process::cancellable(&flag, || process::run(&command, Duration::from_secs(60), &dir.path().join("c.log")))
        .expect_err("the run is cancelled");
    setter.join().expect("the setter ends");
    assert!(process::is_cancelled(&error) && !process::is_interrupted(&error), "{error:#}");
    assert!(started.elapsed() < Duration::from_secs(30), "the cancel flag was not seen");
    let again = process::cancellable(&flag, || process::run(&command, Duration::from_secs(60), &dir.path().join("d.log")));
    assert!(again.is_err_and(|e| process::is_cancelled(&e)));
    // Another thread's runs, and this one's outside `cancellable`, are not affected.
    let plain = process::run(&Command::new("true"), Duration::from_secs(30), &dir.path().join("e.log")).expect("runs");
    assert_eq!(plain.status, Status::Exited(0));
}

#[test]
fn a_program_ignoring_sigterm_is_killed_after_the_grace_period() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = "trap '' TERM; sleep 1000 & echo $!; while :; do sleep 0.05; done";
    let command = Command::new("sh").args(["-c", script]);
    let timeout = Duration::from_millis(300);
    let result = process::run(&command, timeout, &dir.path().join("stubborn.log")).expect("runs");
    assert_eq!(result.status, Status::TimedOut);
    assert!(result.elapsed >= timeout + TERM_GRACE, "SIGKILL came before the grace period ended");
    assert!(common::process_is_gone(first_line_pid(&result.stdout)));
}

#[test]
fn a_grandchild_left_running_is_killed_and_does_not_hold_up_the_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let command = Command::new("sh").args(["-c", "sleep 1000 & echo $!"]);
    let result = process::run(&command, Duration::from_secs(30), &dir.path().join("bg.log")).expect("runs");
    assert_eq!(result.status, Status::Exited(0));
    assert!(
        result.elapsed < Duration::from_secs(1),
        "the run waited for the grandchild: {:?}",
        result.elapsed
    );
    assert!(common::process_is_gone(first_line_pid(&result.stdout)));
}

#[test]
fn a_panicking_program_reports_its_exit_code_and_stderr_tail() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("panic.log");
    let command = Command::new(common::programs()).arg("panic").env("RUST_BACKTRACE", "0");
    let result = process::run(&command, Duration::from_secs(20), &log).expect("runs");
    assert_eq!(result.status, Status::Exited(101));
    let tail = result.stderr_tail(300);
    assert!(tail.contains("panicked at src/main.rs"), "{tail}");
    assert!(tail.contains("no value to check: 0 values"), "{tail}");
    let text = fs::read_to_string(&log).expect("log");
    assert!(
        text.contains("no value to check: 0 values") && text.contains("# exited with code 101"),
        "{text}"
    );
}

#[test]
fn both_streams_are_captured_and_logged_between_the_command_and_its_status() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("nested/exit.log");
    let command = Command::new(common::programs()).args(["exit", "3"]).cwd(dir.path());
    let result = process::run(&command, Duration::from_secs(20), &log).expect("runs");
    assert_eq!(result.status, Status::Exited(3));
    assert_eq!((result.stdout.as_str(), result.stderr.as_str()), ("to stdout\n", "to stderr\n"));
    let text = fs::read_to_string(&log).expect("log");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], format!("$ {} exit 3", common::programs().display()));
    assert!(lines.contains(&"to stdout") && lines.contains(&"to stderr"), "{text}");
    assert!(lines.last().is_some_and(|l| l.starts_with("# exited with code 3 after ")), "{text}");
}

#[test]
fn stdout_can_be_kept_out_of_the_log() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("quiet.log");
    let command = Command::new(common::programs()).args(["exit", "0"]).log_stdout(false);
    let result = process::run(&command, Duration::from_secs(20), &log).expect("runs");
    assert_eq!(result.stdout, "to stdout\n");
    let text = fs::read_to_string(&log).expect("log");
    assert!(!text.contains("to stdout") && text.contains("to stderr"), "{text}");
}

#[test]
fn a_missing_program_is_an_error_that_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let command = Command::new("fptune-no-such-program");
    let err = process::run(&command, Duration::from_secs(5), &dir.path().join("x.log")).expect_err("fails");
    assert!(err.to_string().contains("could not start `fptune-no-such-program`"), "{err}");
}

#[test]
fn a_missing_program_says_whether_it_is_a_path_that_is_gone_or_a_name_not_on_path() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("m.log");
    let gone = dir.path().join("target/fptune-single");
    let error = process::run(&Command::new(&gone).arg("W"), Duration::from_secs(30), &log).expect_err("no such file");
    let message = format!("{error:#}");
    assert!(message.contains("does not exist (was it removed while fptune ran?)") && message.contains("fptune-single"), "{message}");
    let error = process::run(&Command::new("fptune-no-such-program"), Duration::from_secs(30), &log).expect_err("not on PATH");
    assert!(format!("{error:#}").contains("is it installed and on PATH?"), "{error:#}");
}

/// Cargo builds take their jobs from one pool: a pooled child sees the jobserver in
/// `CARGO_MAKEFLAGS` (with descriptors it can use), and a candidate run does not.
#[test]
fn a_pooled_command_gets_the_shared_jobserver_and_others_do_not() {
    let Some(pool) = process::job_pool() else {
        eprintln!("skipped: one core, so no job pool");
        return;
    };
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let inherited = ["CARGO_MAKEFLAGS", "MAKEFLAGS", "MFLAGS"].iter().any(|k| std::env::var_os(k).is_some());
    if !inherited {
        assert_eq!(pool.available().expect("tokens"), cores - 1, "a pool of its own has a token less than the cores");
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("env.log");
    let show = "printf '%s\\n' \"${CARGO_MAKEFLAGS:-none}\"";
    let pooled = process::run(&Command::new("sh").args(["-c", show]).pooled(), Duration::from_secs(10), &log).expect("runs");
    assert!(pooled.stdout.contains("--jobserver-auth="), "{}", pooled.stdout);
    let plain = process::run(&Command::new("sh").args(["-c", show]).env_remove("CARGO_MAKEFLAGS"), Duration::from_secs(10), &log).expect("runs");
    assert_eq!(plain.stdout.trim(), "none");
}

/// Run by [`a_child_dies_when_fptune_is_killed`] in a process of its own (ignored otherwise):
/// runs the `programs` executable named in the environment, which hangs, with a long timeout.
#[test]
#[ignore = "a helper: run by a_child_dies_when_fptune_is_killed"]
fn helper_run_a_hanging_program() {
    let (Some(exe), Some(pidfile)) = (std::env::var_os("FPTUNE_TEST_EXE"), std::env::var_os("FPTUNE_TEST_PIDFILE")) else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let command = Command::new(exe).arg("pidfile").arg(pidfile);
    let _ = process::run(&command, Duration::from_secs(600), &dir.path().join("log"));
}

#[test]
fn a_child_dies_when_fptune_is_killed() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pidfile = dir.path().join("pid");
    let mut parent = std::process::Command::new(std::env::current_exe().expect("this test binary"))
        .args(["--exact", "helper_run_a_hanging_program", "--ignored", "--nocapture"])
        .env("FPTUNE_TEST_EXE", common::programs())
        .env("FPTUNE_TEST_PIDFILE", &pidfile)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("the helper starts");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let child: u32 = loop {
        if let Ok(text) = std::fs::read_to_string(&pidfile) {
            break text.trim().parse().expect("a pid");
        }
        assert!(std::time::Instant::now() < deadline, "the hanging program never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    // SIGKILL: the parent gets no chance to stop its children itself.
    parent.kill().expect("killed");
    parent.wait().expect("reaped");
    assert!(common::process_is_gone(child), "the candidate {child} outlived the process that ran it");
}

#[test]
fn a_flood_of_output_keeps_the_logs_head_and_tail_and_says_what_it_left_out() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("flood.log");
    let result = process::run(&Command::new(common::programs()).args(["flood", "40"]), Duration::from_secs(60), &log).expect("runs");
    assert_eq!(result.status, Status::Exited(0));
    let size = fs::metadata(&log).expect("a log").len() as usize;
    assert!(size < process::LOG_HEAD + process::LOG_TAIL + 4096, "{size} bytes");
    let text = fs::read_to_string(&log).expect("text");
    assert!(text.starts_with("$ ") && text.contains("line                    0 x"), "the head is kept");
    assert!(text.contains("bytes of output left out: the log keeps the first 8 MiB and the last 1 MiB]"));
    let tail = text.split("left out").nth(1).expect("the tail follows the note");
    assert!(tail.len() > process::LOG_TAIL && tail.contains("\nend\n\n# exited with code 0"), "the tail is kept");
    assert!(result.stdout.ends_with("end\n") && result.stdout.len() < 40 << 20);
}
