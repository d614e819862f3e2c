//! Scheduling a round of the search on the workers ([`LabOracle::run_queue`]): which candidate,
//! successor or test of the round after a free worker starts, and which are cancelled.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use anyhow::{anyhow, Result};

use crate::model::{Configuration, Outcome};
use crate::process;
use crate::search::LookAhead;

use super::judge::LabOracle;

/// What the workers of [`LabOracle::run_queue`] share.
pub(super) struct Queue {
    /// The next candidate to start.
    next: usize,
    /// No candidate from here on is started, and those running are cancelled: one before it is
    /// valid, or failed to run.
    end: usize,
    results: Vec<Option<Result<Outcome>>>,
    /// The cancel flags of the candidates running, by index.
    running: Vec<(usize, Arc<AtomicBool>)>,
    /// The candidates whose successor was started (at most once each), with its cancel flag;
    /// from the number of candidates on, the tests of the round after that were started
    /// (`len + j` for the `j`-th of [`LookAhead::if_none_valid`]).
    speculated: Vec<(usize, Arc<AtomicBool>)>,
    /// How many of `speculated` are under way.
    speculating: usize,
    /// The test of the round after to consider next (`len + j` for the `j`-th of
    /// [`LookAhead::if_none_valid`]).
    after: usize,
    /// Whether the round after needs no more tests: one came back valid (or known valid, or
    /// failed to run), so the search stops there.
    after_done: bool,
}

impl Queue {
    /// The queue of a round of `len` candidates, none started.
    pub(super) fn new(len: usize) -> Queue {
        Queue {
            next: 0,
            end: len,
            results: (0..len).map(|_| None).collect(),
            running: Vec::new(),
            speculated: Vec::new(),
            speculating: 0,
            after: len,
            after_done: false,
        }
    }

    /// Nothing from `end` on is needed: cancels what runs there, and the successors of
    /// candidates from there on.
    pub(super) fn stop_at(&mut self, end: usize) {
        self.end = self.end.min(end);
        cancel(&self.running, |i| i >= end);
        self.drop_successors(|i| i >= end);
    }

    /// Cancels the successors of the candidates `moot` says are not needed.
    pub(super) fn drop_successors(&mut self, moot: impl Fn(usize) -> bool) {
        cancel(&self.speculated, moot);
    }

    /// Whether the successor of candidate `i` was started.
    pub(super) fn speculated_for(&self, i: usize) -> bool {
        self.speculated.iter().any(|(j, _)| *j == i)
    }

    /// The test of the round after (from `len`, the number of candidates, to `total`: `len + j`
    /// for the `j`-th of [`LookAhead::if_none_valid`]) a free worker may start: when every candidate was started, none is known
    /// valid or failed, the round after is not decided, and a run is under way (the round waits
    /// for it anyway, so this worker would be idle). The round after's tests come in order.
    pub(super) fn next_after(&mut self, len: usize, total: usize) -> Option<usize> {
        let waiting = !self.running.is_empty() || self.speculating > 0;
        if self.next != len || self.end != len || self.after_done || !waiting {
            return None;
        }
        let k = self.after.max(len);
        (k < total).then(|| {
            self.after = k + 1;
            k
        })
    }

    /// A test of the round after (`k`, as [`Queue::next_after`] gave it) ended: when valid (or failed),
    /// the search stops there, and the tests after it are moot.
    pub(super) fn after_ended(&mut self, k: usize, decided: bool) {
        if decided {
            self.after_done = true;
            cancel(&self.speculated, |j| j > k);
        }
    }

    /// The first candidate not finished, if it is running: the one the round waits for.
    pub(super) fn awaited(&self) -> Option<usize> {
        let head = self.results.iter().position(Option::is_none)?;
        (head < self.next.min(self.end) && self.running.iter().any(|(i, _)| *i == head)).then_some(head)
    }
}

/// Raises the cancel flags of `flags` whose candidate index `moot` says is not needed.
pub(super) fn cancel(flags: &[(usize, Arc<AtomicBool>)], moot: impl Fn(usize) -> bool) {
    for (i, flag) in flags {
        if moot(*i) {
            flag.store(true, Ordering::Relaxed);
        }
    }
}

/// What a worker of [`LabOracle::run_queue`] does next.
pub(super) enum Job<'c> {
    /// Candidate `i` of the round.
    Candidate(usize),
    /// The successor of candidate `k` the round waits for, or (`k` past the candidates) a test
    /// of the round after.
    Successor(usize, &'c Configuration),
}

impl LabOracle<'_, '_> {
    /// Tests `candidates` on up to `jobs` workers at once, each taking the next candidate as
    /// soon as it is free (a candidate stopped early at an overflow does not leave its worker
    /// waiting for a slower one). With `until_valid`, none is started after a valid one, and
    /// those running after it are cancelled (their builds and runs killed, nothing cached).
    ///
    /// With the search's look-ahead ([`LookAhead`]), a free worker first starts the successor of
    /// the candidate the round waits for ([`LookAhead::after_valid`]), if it has one not yet
    /// known: when that candidate is valid, the round also waits for its successor (whose
    /// outcome is cached for the next round); when it is not, the successor is cancelled. A
    /// worker with no candidate left to start takes the next of the round after's tests
    /// ([`LookAhead::if_none_valid`]), if given, while a run is under way: in order, which the
    /// search runs when none of the candidates is valid. They are cancelled as soon as a candidate is valid, and
    /// those after one of them that is valid as soon as it is.
    ///
    /// Returns the outcomes of the candidates finished before the first one not finished, in
    /// order; the first error, if any.
    pub(super) fn run_queue(
        &self,
        candidates: &[Configuration],
        ahead: &LookAhead,
        jobs: usize,
        until_valid: bool,
    ) -> Result<Vec<Outcome>> {
        let lab = self.lab;
        let queue = Mutex::new(Queue::new(candidates.len()));
        let len = candidates.len();
        let spare = if until_valid {
            ahead.if_none_valid.len() + usize::from(ahead.after_valid.iter().take(len).any(Option::is_some))
        } else {
            0
        };
        let workers = lab.workers.len().min(jobs.max(1)).min(len + spare);
        // The outcome of a successor known from the cache, if it is (valid or not).
        let known = |config: &Configuration| self.recalled(config).map(|o| o.is_valid());
        let successor = |i: usize| -> Option<&Configuration> {
            let config = ahead.after(i)?;
            // Not when its outcome is known already.
            known(config).is_none().then_some(config)
        };
        let panicked = std::thread::scope(|s| {
            let handles: Vec<_> = lab.workers[..workers]
                .iter()
                .map(|worker| {
                    let queue = &queue;
                    let successor = &successor;
                    s.spawn(move || loop {
                        let cancel = Arc::new(AtomicBool::new(false));
                        let job = {
                            let mut q = process::lock(queue);
                            loop {
                                let awaited = q.awaited().filter(|&h| !q.speculated_for(h));
                                if let Some((h, config)) = awaited.and_then(|h| Some((h, successor(h)?))) {
                                    q.speculated.push((h, Arc::clone(&cancel)));
                                    q.speculating += 1;
                                    break Job::Successor(h, config);
                                } else if q.next < q.end {
                                    let i = q.next;
                                    q.next += 1;
                                    q.running.push((i, Arc::clone(&cancel)));
                                    break Job::Candidate(i);
                                } else if let Some(k) = q.next_after(len, len + ahead.if_none_valid.len()) {
                                    // Nothing of the round left to start, none valid yet: the
                                    // round after, which the search tests if none is valid,
                                    // up to its first valid test.
                                    let config = &ahead.if_none_valid[k - len];
                                    match known(config) {
                                        Some(valid) => q.after_ended(k, valid),
                                        None => {
                                            q.speculated.push((k, Arc::clone(&cancel)));
                                            q.speculating += 1;
                                            break Job::Successor(k, config);
                                        }
                                    }
                                } else {
                                    return;
                                }
                            }
                        };
                        let i = match job {
                            Job::Successor(k, config) => {
                                lab.console.candidate(config);
                                let tested = match worker.lock() {
                                    Ok(worker) => process::cancellable(&cancel, || self.test_one(&worker, config)),
                                    Err(_) => Err(anyhow!("a worker panicked")),
                                };
                                // Its outcome is cached; an error shows again when the search
                                // tests it.
                                let decided = match &tested {
                                    Ok(o) => o.is_valid(),
                                    Err(e) => !process::is_cancelled(e),
                                };
                                if let Some(o) = tested.ok().filter(|o| !o.cached) {
                                    process::lock(&lab.speculated).insert(config.clone(), (o.build_seconds, o.run_seconds));
                                }
                                let mut q = process::lock(queue);
                                q.speculating -= 1;
                                if k >= len {
                                    q.after_ended(k, decided);
                                }
                                continue;
                            }
                            Job::Candidate(i) => i,
                        };
                        let config = &candidates[i];
                        lab.console.candidate(config);
                        let outcome = match worker.lock() {
                            Ok(worker) => process::cancellable(&cancel, || self.test_one(&worker, config)),
                            Err(_) => Err(anyhow!("a worker panicked")),
                        };
                        let mut q = process::lock(queue);
                        q.running.retain(|(j, _)| *j != i);
                        match &outcome {
                            Err(e) if process::is_cancelled(e) => continue,
                            Err(_) => q.stop_at(i + 1),
                            Ok(o) if until_valid && o.is_valid() => q.stop_at(i + 1),
                            Ok(_) => q.drop_successors(|j| j == i),
                        }
                        q.results[i] = Some(outcome);
                    })
                })
                .collect();
            handles.into_iter().fold(false, |panicked, h| h.join().is_err() | panicked)
        });
        if panicked {
            return Err(anyhow!("a worker thread panicked"));
        }
        // Saved after a round at most every few seconds (a batch's cache grows to tens of
        // megabytes), and at the end of the search's requirement by the re-check: an
        // interrupted search loses little.
        lab.save_cache_every(Duration::from_secs(10))?;
        let results = queue.into_inner().unwrap_or_else(PoisonError::into_inner).results;
        // Every candidate before `end` finished; one cancelled after it ends the outcomes.
        results.into_iter().map_while(|r| r).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    use super::Queue;

    #[test]
    fn the_round_after_runs_in_order_while_the_round_waits_and_stops_at_its_first_valid_test() {
        // Two candidates and three tests of the round after (successors 2, 3, 4).
        let mut q = Queue::new(2);
        let flag = || Arc::new(AtomicBool::new(false));
        q.next = 1;
        q.running.push((0, flag()));
        assert_eq!(q.next_after(2, 5), None, "a candidate is left to start");
        q.next = 2;
        q.running.push((1, flag()));
        assert_eq!(q.next_after(2, 5), Some(2));
        let (f2, f3) = (flag(), flag());
        q.speculated.push((2, Arc::clone(&f2)));
        q.speculating += 1;
        // The candidates end, none valid: the round waits for test 2, so a free worker takes 3.
        q.running.clear();
        assert_eq!(q.next_after(2, 5), Some(3));
        q.speculated.push((3, Arc::clone(&f3)));
        q.speculating += 1;
        // Test 2 is valid: the search stops there, test 3 is moot, nothing more starts.
        q.speculating -= 1;
        q.after_ended(2, true);
        assert!(f3.load(Ordering::Relaxed) && !f2.load(Ordering::Relaxed));
        assert_eq!(q.next_after(2, 5), None);

        // Nothing under way: the round is over, and no worker starts the round after.
        let mut q = Queue::new(1);
        q.next = 1;
        assert_eq!(q.next_after(1, 3), None);
        // A valid candidate: no round after.
        let mut q = Queue::new(3);
        q.next = 3;
        q.running.push((2, flag()));
        q.stop_at(1);
        assert_eq!(q.next_after(3, 5), None);
        // An invalid test of the round after lets the next one start; past the last, none.
        let mut q = Queue::new(1);
        q.next = 1;
        q.running.push((0, flag()));
        assert_eq!(q.next_after(1, 3), Some(1));
        q.after_ended(1, false);
        assert_eq!(q.next_after(1, 3), Some(2));
        assert_eq!(q.next_after(1, 3), None);
    }
}
