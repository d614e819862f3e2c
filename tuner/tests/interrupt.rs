//! Ctrl-C: running children are stopped, live scratch copies deleted, later runs refused.
//! (Its own test binary: it interrupts the whole process.)

mod common;

use std::fs;
use std::thread;
use std::time::{Duration, Instant};

use cargo_fptune::process::{self, Command};
use cargo_fptune::scratch::{Scratch, ScratchOptions};

#[test]
fn ctrl_c_stops_the_running_child_and_deletes_live_scratch_dirs() {
    process::install_ctrlc_handler().expect("handler installs");
    process::install_ctrlc_handler().expect("installing twice is harmless");
    let (user, tree) = common::fixture("path_dep");
    let scratch = Scratch::create(&tree.join("app"), &ScratchOptions::default()).expect("scratch");
    let leaked = Scratch::create(&tree.join("app"), &ScratchOptions { leak: true, ..Default::default() })
        .expect("leaked scratch");

    let log = user.path().join("running.log");
    let runner = {
        let log = log.clone();
        thread::spawn(move || {
            let command = Command::new("sh").args(["-c", "sleep 1000 & echo $!; wait"]);
            process::run(&command, Duration::from_secs(60), &log)
        })
    };
    let started = Instant::now();
    let sleeper = loop {
        let text = fs::read_to_string(&log).unwrap_or_default();
        if let Some(pid) = text.lines().nth(1).and_then(|l| l.trim().parse::<u32>().ok()) {
            break pid;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "the child never started: {text}");
        thread::sleep(Duration::from_millis(10));
    };

    // SAFETY: kill(2) on our own pid; the handler installed above turns SIGINT into a flag.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGINT);
    }
    let err = runner.join().expect("the runner thread").expect_err("the run is interrupted");
    assert!(process::is_interrupted(&err), "{err:#}");
    assert!(process::interrupted());
    assert!(common::process_is_gone(sleeper), "the child's group was not killed");

    let deadline = Instant::now() + Duration::from_secs(5);
    while scratch.root().exists() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
    }
    assert!(!scratch.root().exists(), "the live scratch was not deleted");
    assert!(leaked.root().exists(), "a leaked scratch is kept");

    let later = process::run(&Command::new("true"), Duration::from_secs(5), &log).expect_err("refused");
    assert!(process::is_interrupted(&later));
    fs::remove_dir_all(leaked.dir()).expect("clean up");
}
