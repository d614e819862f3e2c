//! The search against fake oracles: what it finds (valid, 1-minimal, pinned units unmoved), what
//! it tests (never twice, lowering everything first, PROMISE's sequence), batches, the cache, and
//! how many tests it takes.

use std::collections::{HashMap, HashSet};

use cargo_fptune::model::{Configuration, Coupling, FloatFormat, Ladder, Outcome, Reason, Unit};
use cargo_fptune::search::{search, Algorithm, LookAhead, Oracle, Problem, SearchEvent, SearchOptions, SearchResult};
use pretty_assertions::assert_eq;

use FloatFormat::{F16, F32, F64};

const ALGORITHMS: [Algorithm; 2] = [Algorithm::Promise, Algorithm::Zeller];

fn units(count: usize) -> Vec<Unit> {
    (0..count).map(|id| Unit { id, knobs: vec![id], coupling: Coupling::Alone, pinned: None, unchecked: false }).collect()
}

/// How many steps below the top of the ladder a unit's format is.
fn depth(ladder: &Ladder, format: FloatFormat) -> usize {
    ladder.formats.iter().position(|&f| f == format).expect("a format on the ladder")
}

/// An oracle answering with a function of the configuration, which records every configuration
/// it was asked for and the size of every batch, and, given a memory, remembers its outcomes
/// (as the tuner's cache of runs does) and recalls them.
struct FakeOracle<F> {
    valid: F,
    asked: Vec<Configuration>,
    batches: Vec<usize>,
    memory: Option<HashMap<Configuration, Outcome>>,
}

impl<F: FnMut(&Configuration) -> bool> FakeOracle<F> {
    fn new(valid: F) -> Self {
        FakeOracle { valid, asked: Vec::new(), batches: Vec::new(), memory: None }
    }

    fn remembering(valid: F, memory: HashMap<Configuration, Outcome>) -> Self {
        FakeOracle { memory: Some(memory), ..FakeOracle::new(valid) }
    }

    fn assert_never_asked_twice(&self) {
        assert_never_asked_twice(&self.asked);
    }
}

fn assert_never_asked_twice(asked: &[Configuration]) {
    let distinct: HashSet<&Configuration> = asked.iter().collect();
    assert_eq!(distinct.len(), asked.len(), "a configuration was tested twice");
}

impl<F: FnMut(&Configuration) -> bool> Oracle for FakeOracle<F> {
    fn test(&mut self, batch: &[Configuration]) -> anyhow::Result<Vec<Outcome>> {
        self.batches.push(batch.len());
        self.asked.extend(batch.iter().cloned());
        let outcomes: Vec<Outcome> = batch.iter().map(|c| outcome(c, (self.valid)(c))).collect();
        if let Some(memory) = &mut self.memory {
            memory.extend(outcomes.iter().map(|o| (o.configuration.clone(), o.clone())));
        }
        Ok(outcomes)
    }

    fn recall(&mut self, configuration: &Configuration) -> Option<Outcome> {
        let known = self.memory.as_ref()?.get(configuration)?;
        Some(Outcome { cached: true, build_seconds: 0.0, run_seconds: 0.0, ..known.clone() })
    }
}

fn outcome(configuration: &Configuration, valid: bool) -> Outcome {
    Outcome {
        configuration: configuration.clone(),
        invalid: (!valid).then(|| Reason::TooFewDigits {
            value: format!("result[{}]", configuration.key()),
            digits: 1.5,
            required: 4.0,
        }),
        build_seconds: 2.0,
        run_seconds: 0.25,
        cached: false,
        log: Some(format!("logs/{}.log", configuration.key()).into()),
    }
}

fn run(
    units: &[Unit],
    start: &Configuration,
    ladder: &Ladder,
    options: SearchOptions,
    oracle: &mut dyn Oracle,
) -> SearchResult {
    let problem = Problem { units, start, ladder };
    search(&problem, &options, oracle, &mut |_| {}).expect("the search succeeds")
}

fn run_from_top(units: &[Unit], ladder: &Ladder, options: SearchOptions, oracle: &mut dyn Oracle) -> SearchResult {
    run(units, &Configuration::uniform(units.len(), ladder.top()), ladder, options, oracle)
}

fn options(algorithm: Algorithm) -> SearchOptions {
    SearchOptions { jobs: 1, algorithm }
}

/// The result is valid and no unit that may move can go one step lower: the evidence covers
/// exactly those units, each with a failing outcome of the search.
fn assert_valid_and_one_minimal(
    result: &SearchResult,
    units: &[Unit],
    ladder: &Ladder,
    valid: &mut dyn FnMut(&Configuration) -> bool,
) {
    let found = &result.configuration;
    assert!(valid(found), "the result {found} is not valid");
    let mut expected_evidence = Vec::new();
    for unit in units.iter().filter(|u| u.pinned.is_none()) {
        let Some(&lower) = ladder.formats.get(depth(ladder, found.0[unit.id]) + 1) else { continue };
        let mut tried = found.clone();
        tried.0[unit.id] = lower;
        assert!(!valid(&tried), "unit {} of {found} can go one step lower", unit.id);
        assert!(result.tested.iter().any(|o| o.configuration == tried && !o.is_valid()));
        expected_evidence.push((unit.id, tried));
    }
    let evidence: Vec<_> = result.evidence.iter().map(|e| (e.unit, e.tried.clone())).collect();
    assert_eq!(evidence, expected_evidence);
}

#[test]
fn lowering_everything_is_tried_first() {
    for algorithm in ALGORITHMS {
        let units = units(6);
        let ladder = Ladder::ieee();
        let mut oracle = FakeOracle::new(|c: &Configuration| c.0[2] == F64);
        run_from_top(&units, &ladder, options(algorithm), &mut oracle);
        assert_eq!(oracle.asked[0], Configuration::uniform(6, F32));
    }
}

#[test]
fn when_everything_is_valid_every_unit_reaches_the_bottom_with_one_test_per_pass() {
    for algorithm in ALGORITHMS {
        let units = units(7);
        let ladder = Ladder::ieee();
        let mut oracle = FakeOracle::new(|_: &Configuration| true);
        let result = run_from_top(&units, &ladder, options(algorithm), &mut oracle);
        assert_eq!(result.configuration, Configuration::uniform(7, F16));
        assert_eq!(oracle.asked, vec![Configuration::uniform(7, F32), Configuration::uniform(7, F16)]);
        assert_eq!(result.passes.iter().map(|p| (p.tested, p.lowered)).collect::<Vec<_>>(), vec![(1, 7), (1, 7)]);
        assert!(result.evidence.is_empty());
    }
}

/// Valid iff the units of `single` stay at f32 or above and those of `double` at f64.
fn thresholds(single: &[usize], double: &[usize]) -> impl Fn(&Configuration) -> bool + Clone {
    let (single, double) = (single.to_vec(), double.to_vec());
    move |c: &Configuration| {
        single.iter().all(|&u| matches!(c.0[u], F32 | F64)) && double.iter().all(|&u| c.0[u] == F64)
    }
}

#[test]
fn a_monotone_oracle_gives_exactly_its_thresholds_without_testing_anything_twice() {
    for algorithm in ALGORITHMS {
        let units = units(12);
        let ladder = Ladder::ieee();
        let valid = thresholds(&[0, 3, 4, 11], &[5, 9]);
        let mut oracle = FakeOracle::new(valid.clone());
        let result = run_from_top(&units, &ladder, options(algorithm), &mut oracle);

        let expected: Vec<FloatFormat> = (0..12)
            .map(|u| match u {
                5 | 9 => F64,
                0 | 3 | 4 | 11 => F32,
                _ => F16,
            })
            .collect();
        assert_eq!(result.configuration, Configuration(expected));
        assert_valid_and_one_minimal(&result, &units, &ladder, &mut valid.clone());
        oracle.assert_never_asked_twice();
        assert_eq!(result.tested.len(), oracle.asked.len());
        assert!(result.check.lowered.is_empty());
    }
}

#[test]
fn with_interactions_the_result_is_valid_and_one_minimal() {
    // Valid iff at most 3 of the group are below f64 and at most 1 of them below f32.
    let group = [1, 2, 4, 6, 7, 9];
    let mut valid = move |c: &Configuration| {
        group.iter().filter(|&&u| c.0[u] != F64).count() <= 3 && group.iter().filter(|&&u| c.0[u] == F16).count() <= 1
    };
    for algorithm in ALGORITHMS {
        let units = units(10);
        let ladder = Ladder::ieee();
        let mut oracle = FakeOracle::new(valid);
        let result = run_from_top(&units, &ladder, options(algorithm), &mut oracle);
        assert_valid_and_one_minimal(&result, &units, &ladder, &mut valid);
        oracle.assert_never_asked_twice();
        assert_eq!(result.configuration.census(), (5, 2, 3), "{algorithm:?}: {}", result.configuration);
    }
}

#[test]
fn pinned_units_never_move() {
    for algorithm in ALGORITHMS {
        let mut units = units(6);
        units[1].pinned = Some("src/lib.rs:3".into());
        units[4].pinned = Some("src/lib.rs:9".into());
        let ladder = Ladder::ieee();
        // Pinned unit 4 was declared f32: it stays there, while the others start at f64.
        let start = Configuration(vec![F64, F64, F64, F64, F32, F64]);
        let mut oracle = FakeOracle::new(|c: &Configuration| c.0[3] != F16);
        let result = run(&units, &start, &ladder, options(algorithm), &mut oracle);
        assert_eq!(result.configuration, Configuration(vec![F16, F64, F16, F32, F32, F16]));
        assert!(oracle.asked.iter().all(|c| c.0[1] == F64 && c.0[4] == F32));
        assert_eq!(result.evidence.iter().map(|e| e.unit).collect::<Vec<_>>(), vec![3]);
        assert_eq!(result.passes.iter().map(|p| p.units).collect::<Vec<_>>(), vec![4, 4]);
    }
}

#[test]
fn a_unit_that_starts_at_f32_joins_the_second_pass_only() {
    let units = units(3);
    let ladder = Ladder::ieee();
    let start = Configuration(vec![F64, F32, F64]);
    let mut oracle = FakeOracle::new(|_: &Configuration| true);
    let result = run(&units, &start, &ladder, SearchOptions::default(), &mut oracle);
    assert_eq!(oracle.asked, vec![Configuration(vec![F32, F32, F32]), Configuration::uniform(3, F16)]);
    assert_eq!(result.passes.iter().map(|p| p.units).collect::<Vec<_>>(), vec![2, 3]);
}

#[test]
fn the_evidence_gives_the_reason_of_the_failing_step() {
    let units = units(3);
    let ladder = Ladder::bf16();
    let mut oracle = FakeOracle::new(thresholds(&[0], &[2]));
    let result = run_from_top(&units, &ladder, SearchOptions::default(), &mut oracle);
    assert_eq!(result.configuration, Configuration(vec![F32, FloatFormat::BF16, F64]));
    let shown: Vec<_> = result.evidence.iter().map(|e| (e.unit, e.reason.to_string())).collect();
    assert_eq!(
        shown,
        vec![
            (0, "result[bf16,bf16,f64] has 1.50 exact digits (DSA), 4 required".to_string()),
            (2, "result[f32,bf16,f32] has 1.50 exact digits (DSA), 4 required".to_string()),
        ]
    );
    assert_eq!(result.evidence[0].log, Some("logs/bf16,bf16,f64.log".into()));
}

#[test]
fn recalled_outcomes_make_a_second_search_of_the_same_problem_test_nothing() -> anyhow::Result<()> {
    let units = units(9);
    let ladder = Ladder::ieee();
    let start = Configuration::uniform(9, F64);
    let problem = Problem { units: &units, start: &start, ladder: &ladder };
    let valid = thresholds(&[2, 3], &[7]);

    let mut first = FakeOracle::remembering(valid.clone(), HashMap::new());
    let before = search(&problem, &SearchOptions::default(), &mut first, &mut |_| {})?;
    assert!(!first.asked.is_empty());

    let memory = first.memory.take().expect("a memory");
    let mut second = FakeOracle::remembering(valid, memory);
    let after = search(&problem, &SearchOptions::default(), &mut second, &mut |_| {})?;
    assert_eq!(second.asked, Vec::<Configuration>::new());
    assert_eq!(after.configuration, before.configuration);
    assert_eq!(after.evidence, before.evidence);
    assert!(after.tested.iter().all(|o| o.cached && o.build_seconds == 0.0 && o.run_seconds == 0.0));
    assert_eq!(after.passes.iter().map(|p| (p.tested, p.cached)).collect::<Vec<_>>(), {
        before.passes.iter().map(|p| (0, p.tested)).collect::<Vec<_>>()
    });
    Ok(())
}

/// Batches of `jobs`, and the lab's queue of `jobs` workers finishing in any order, give the
/// result of a sequential search.
#[test]
fn batches_and_workers_finishing_in_any_order_give_the_result_of_one_test_at_a_time() {
    for seed in 0..60 {
        let mut random = Random(seed);
        let count = 1 + random.below(16);
        let mut valid = random_monotone_oracle(&mut random, count, &Ladder::ieee());
        for algorithm in ALGORITHMS {
            let units = units(count);
            let ladder = Ladder::ieee();
            let mut alone = FakeOracle::new(&mut valid);
            let one = run_from_top(&units, &ladder, options(algorithm), &mut alone);
            assert!(alone.batches.iter().all(|&b| b == 1));
            for jobs in [2, 3, 8] {
                let mut oracle = FakeOracle::new(&mut valid);
                let batched = run_from_top(&units, &ladder, SearchOptions { jobs, algorithm }, &mut oracle);
                assert_eq!(batched.configuration, one.configuration, "seed {seed}, {jobs} jobs");
                assert_eq!(batched.evidence, one.evidence);
                assert!(oracle.batches.iter().all(|&b| (1..=jobs).contains(&b)));
                oracle.assert_never_asked_twice();
                let mut queue = QueueOracle { valid: &mut valid, random: Random(seed * 31 + jobs as u64), asked: Vec::new() };
                let queued = run_from_top(&units, &ladder, SearchOptions { jobs, algorithm }, &mut queue);
                assert_eq!(queued.configuration, one.configuration, "seed {seed}, {jobs} jobs, queued");
                assert_eq!(queued.evidence, one.evidence);
                assert_never_asked_twice(&queue.asked);
            }
        }
    }
}

/// An oracle that runs `jobs` candidates at once like the lab's queue: each takes a random time,
/// a free worker starts the next candidate at once, and none is started after one known valid.
struct QueueOracle<F> {
    valid: F,
    random: Random,
    asked: Vec<Configuration>,
}

impl<F: FnMut(&Configuration) -> bool> Oracle for QueueOracle<F> {
    fn test(&mut self, batch: &[Configuration]) -> anyhow::Result<Vec<Outcome>> {
        self.asked.extend(batch.iter().cloned());
        Ok(batch.iter().map(|c| outcome(c, (self.valid)(c))).collect())
    }

    fn test_in_order(&mut self, candidates: &[Configuration], _ahead: &LookAhead, jobs: usize) -> anyhow::Result<Vec<Outcome>> {
        // (finish time, index) of the running candidates; `end`: none is started from here.
        let (mut running, mut next, mut end, mut now) = (Vec::<(u64, usize)>::new(), 0, candidates.len(), 0);
        let mut outcomes: Vec<Option<Outcome>> = vec![None; candidates.len()];
        loop {
            while running.len() < jobs.max(1) && next < end {
                running.push((now + 1 + self.random.below(20) as u64, next));
                next += 1;
            }
            let Some(first) = running.iter().enumerate().min_by_key(|(_, r)| r.0).map(|(i, _)| i) else {
                break;
            };
            let (at, i) = running.swap_remove(first);
            now = at;
            self.asked.push(candidates[i].clone());
            let o = outcome(&candidates[i], (self.valid)(&candidates[i]));
            if o.is_valid() {
                end = end.min(i + 1);
            }
            outcomes[i] = Some(o);
        }
        Ok(outcomes.into_iter().map_while(|o| o).collect())
    }
}

#[test]
fn batches_hold_the_independent_tests_of_one_round() {
    let units = units(8);
    let ladder = Ladder::ieee();
    let mut oracle = FakeOracle::new(thresholds(&[], &[1, 6]));
    run_from_top(&units, &ladder, SearchOptions { jobs: 4, algorithm: Algorithm::Promise }, &mut oracle);
    // All lowered, then the 2 complements of level 2, then the 4 of level 4.
    assert_eq!(&oracle.batches[..3], &[1, 2, 4]);
}

/// A deterministic generator for the property tests (splitmix64).
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }
}

/// A random monotone oracle: each unit has a lowest depth it tolerates, and a few random groups
/// have a budget for the sum of their units' depths (interactions). Lowering never helps.
fn random_monotone_oracle(random: &mut Random, count: usize, ladder: &Ladder) -> impl FnMut(&Configuration) -> bool {
    let steps = ladder.formats.len() - 1;
    let floor: Vec<usize> = (0..count).map(|_| random.below(steps + 1)).collect();
    let groups: Vec<(Vec<usize>, usize)> = (0..random.below(4))
        .map(|_| {
            let members: Vec<usize> = (0..count).filter(|_| random.below(3) == 0).collect();
            let budget = random.below(members.len() * steps + 1);
            (members, budget)
        })
        .collect();
    let ladder = ladder.clone();
    move |c: &Configuration| {
        let depths: Vec<usize> = c.0.iter().map(|&f| depth(&ladder, f)).collect();
        depths.iter().zip(&floor).all(|(d, f)| d <= f)
            && groups.iter().all(|(members, budget)| members.iter().map(|&u| depths[u]).sum::<usize>() <= *budget)
    }
}

#[test]
fn random_monotone_oracles_give_valid_one_minimal_results_without_repeated_tests() {
    for seed in 0..400 {
        let mut random = Random(seed);
        let count = random.below(20);
        let ladder = if seed % 2 == 0 { Ladder::ieee() } else { Ladder::bf16() };
        let mut units = units(count);
        for unit in &mut units {
            if random.below(8) == 0 {
                unit.pinned = Some("pinned".into());
            }
        }
        let mut valid = random_monotone_oracle(&mut random, count, &ladder);
        // Pinned units stay at the top, which the oracle must accept for the start to be valid.
        let start = Configuration::uniform(count, ladder.top());
        for algorithm in ALGORITHMS {
            let mut oracle = FakeOracle::new(&mut valid);
            let result = run(&units, &start, &ladder, options(algorithm), &mut oracle);
            oracle.assert_never_asked_twice();
            assert!(result.check.lowered.is_empty(), "seed {seed}: a monotone oracle needs no lowering by the check");
            assert_valid_and_one_minimal(&result, &units, &ladder, &mut valid);
        }
    }
}

#[test]
fn the_minimality_check_lowers_a_unit_that_a_later_pass_made_lowerable() {
    // Not monotone: unit 0 may be f32 only once unit 1 is f16.
    let mut valid = |c: &Configuration| c.0[0] == F64 || (c.0[0] == F32 && c.0[1] == F16);
    let units = units(2);
    let ladder = Ladder::ieee();
    let mut oracle = FakeOracle::new(&mut valid);
    let result = run_from_top(&units, &ladder, SearchOptions::default(), &mut oracle);
    oracle.assert_never_asked_twice();
    assert_eq!(result.configuration, Configuration(vec![F32, F16]));
    assert_eq!(result.check.lowered, vec![0]);
    assert_valid_and_one_minimal(&result, &units, &ladder, &mut valid);
}

/// PROMISE's `deltadebug/dd.py` (cadnapromise 0.4.1), run on fake tests over one pass: the
/// configurations it tests, in order, without its repeats (it keeps no cache), as strings in
/// which `1` marks a lowered unit, and the units it keeps high.
const PROMISE_RUNS: [(&str, &[usize], &str); 3] = [
    (
        "keep 1 and 6 of 8",
        &[1, 6],
        "11111111 11110000 00001111 11000000 00110000 00111100 00111111 11111100 00111110 00111101 \
         10111101 11111101 10111111",
    ),
    (
        "at most 3 of 0 2 3 5 7 8 10 lowered, of 11",
        &[5, 7, 8, 10],
        "11111111111 11111000000 11111111000 11111000111 11111100000 11111010000 11111011100 \
         11111010011 11111110000 11111011000 11111010100 11111010010 11111110010 11111011010 \
         11111010110",
    ),
    (
        "keep 4, and not both 9 and 12 lowered, of 13",
        &[4, 12],
        "1111111111111 1111110000000 0000001111111 1110000000000 1110001110000 1110001111111 \
         1111111110000 1110001111100 1111001111100 1111111111100 1111001111111 1111101111100 \
         1111011111100 1111011111110 1111011111111 1111111111110",
    ),
];

#[test]
fn the_promise_algorithm_tests_what_promise_tests_in_the_same_order() {
    let predicates: [fn(&[usize]) -> bool; 3] = [
        |lowered| !lowered.contains(&1) && !lowered.contains(&6),
        |lowered| lowered.iter().filter(|u| [0, 2, 3, 5, 7, 8, 10].contains(u)).count() <= 3,
        |lowered| !(lowered.contains(&4) || [9, 12].iter().all(|u| lowered.contains(u))),
    ];
    let ladder = Ladder { name: "two".into(), formats: vec![F64, F32], machine: None };
    for ((name, high, sequence), predicate) in PROMISE_RUNS.into_iter().zip(predicates) {
        let expected: Vec<Configuration> = sequence
            .split_whitespace()
            .map(|s| Configuration(s.chars().map(|c| if c == '1' { F32 } else { F64 }).collect()))
            .collect();
        let count = expected[0].0.len();
        let units = units(count);
        let mut oracle = FakeOracle::new(|c: &Configuration| {
            let lowered: Vec<usize> = (0..count).filter(|&u| c.0[u] == F32).collect();
            predicate(&lowered)
        });
        let result = run_from_top(&units, &ladder, options(Algorithm::Promise), &mut oracle);
        assert_eq!(oracle.asked, expected, "{name}");
        let kept: Vec<usize> = (0..count).filter(|&u| result.configuration.0[u] == F64).collect();
        assert_eq!(kept, high.to_vec(), "{name}");
    }
}

#[test]
fn events_announce_each_pass_and_each_outcome() {
    let units = units(5);
    let ladder = Ladder::ieee();
    let mut oracle = FakeOracle::new(thresholds(&[1], &[3]));
    let mut events = Vec::new();
    let start = Configuration::uniform(5, F64);
    let problem = Problem { units: &units, start: &start, ladder: &ladder };
    let result = search(&problem, &SearchOptions::default(), &mut oracle, &mut |e| {
        events.push(e.clone())
    })
    .expect("the search succeeds");
    let outline: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            SearchEvent::PassStarted { pass, from, to, units } => Some(format!("{pass}:{from:?}->{to:?}:{units}")),
            SearchEvent::PassFinished { pass, lowered } => Some(format!("{pass}:lowered {lowered}")),
            SearchEvent::CheckStarted { units } => Some(format!("check {units}")),
            SearchEvent::CheckFinished { lowered } => Some(format!("check lowered {lowered}")),
            SearchEvent::Tested { .. } => None,
        })
        .collect();
    assert_eq!(outline, ["1:F64->F32:5", "1:lowered 4", "2:F32->F16:4", "2:lowered 3", "check 2", "check lowered 0"]);
    let tested = events.iter().filter(|e| matches!(e, SearchEvent::Tested { .. })).count();
    assert_eq!(tested, result.tested.len());
}

#[test]
fn an_inconsistent_problem_is_an_error() {
    let units = units(2);
    let ladder = Ladder::ieee();
    let mut oracle = FakeOracle::new(|_: &Configuration| true);
    let mut attempt = |start: Configuration, ladder: &Ladder| {
        let problem = Problem { units: &units, start: &start, ladder };
        search(&problem, &SearchOptions::default(), &mut oracle, &mut |_| {})
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert_eq!(attempt(Configuration(vec![F64]), &ladder), "the start configuration has 1 formats for 2 units");
    assert_eq!(
        attempt(Configuration(vec![F64, FloatFormat::BF16]), &ladder),
        "unit 1 starts at bf16, which is not on the ladder ieee (f64, f32, f16)"
    );
    let repetitive = Ladder { name: "odd".into(), formats: vec![F64, F32, F64], machine: None };
    assert_eq!(attempt(Configuration(vec![F64, F64]), &repetitive), "the ladder odd names a format twice");
}

#[test]
fn an_oracle_that_answers_something_else_is_an_error() {
    struct Liar;
    impl Oracle for Liar {
        fn test(&mut self, batch: &[Configuration]) -> anyhow::Result<Vec<Outcome>> {
            Ok(batch.iter().map(|_| outcome(&Configuration::uniform(2, F64), true)).collect())
        }
    }
    let units = units(2);
    let start = Configuration::uniform(2, F64);
    let problem = Problem { units: &units, start: &start, ladder: &Ladder::ieee() };
    let error = search(&problem, &SearchOptions::default(), &mut Liar, &mut |_| {})
        .expect_err("the answer is refused");
    assert_eq!(error.to_string(), "the oracle gave the outcome of f64,f64 when asked for f32,f32");
}

/// Whether a configuration is valid.
type Validity = dyn Fn(&Configuration) -> bool;

/// How many configurations a 25-unit search tests (one test costs one build and one run, so
/// this is the search's cost), for kinds of problems from easy to hard, printed as a table
/// (`cargo test -p cargo-fptune --test search -- --nocapture tests_on_25_units`).
#[test]
fn tests_on_25_units_stay_well_below_quadratic() {
    let ladder = Ladder::ieee();
    let units = units(25);
    let keep = |every: usize| -> Vec<usize> { (0..25).filter(|u| u % every == 0).collect() };
    let cases: Vec<(&str, Box<Validity>)> = vec![
        ("everything lowers", Box::new(|_: &Configuration| true)),
        ("1 unit stays f64", Box::new(thresholds(&[], &[12]))),
        ("3 f64, 5 f32", Box::new(thresholds(&[2, 6, 10, 14, 18], &[3, 11, 19]))),
        ("every 5th f64, every 3rd f32", Box::new(thresholds(&keep(3), &keep(5)))),
        ("every 2nd f32", Box::new(thresholds(&keep(2), &[]))),
        ("all stay f64", Box::new(|c: &Configuration| c.0.iter().all(|&f| f == F64))),
        ("at most 10 below f64", Box::new(|c: &Configuration| c.0.iter().filter(|&&f| f != F64).count() <= 10)),
    ];
    println!("{:<30} {:>8} {:>8} {:>7}", "25 units", "Promise", "Zeller", "census");
    for (name, valid) in &cases {
        let mut counts = Vec::new();
        let mut census = (0, 0, 0);
        for algorithm in ALGORITHMS {
            let mut oracle = FakeOracle::new(|c: &Configuration| valid(c));
            let result = run_from_top(&units, &ladder, options(algorithm), &mut oracle);
            oracle.assert_never_asked_twice();
            counts.push(oracle.asked.len());
            census = result.configuration.census();
            // Two passes of 25 units: well under 25 * 25 tests.
            assert!(oracle.asked.len() <= 200, "{name}, {algorithm:?}: {} tests", oracle.asked.len());
        }
        println!("{name:<30} {:>8} {:>8} {:>3}-{}-{}", counts[0], counts[1], census.0, census.1, census.2);
    }
}

/// An oracle that takes up every speculation: on each round it runs, before anything else, the
/// successor the search gave for the candidate that turns out to be the first valid one (or,
/// when none is, the round after's tests up to its first valid one), and remembers them; the
/// search must then recall every one of them.
struct SpeculatingOracle<F> {
    valid: F,
    memory: HashMap<Configuration, Outcome>,
    speculated: Vec<Configuration>,
    recalled: HashSet<Configuration>,
    /// How many of `speculated` were the round after one with no valid candidate.
    fallbacks: usize,
    /// How many of those were not the round after's first test.
    deeper: usize,
}

impl<F: FnMut(&Configuration) -> bool> Oracle for SpeculatingOracle<F> {
    fn test(&mut self, batch: &[Configuration]) -> anyhow::Result<Vec<Outcome>> {
        let outcomes: Vec<Outcome> = batch.iter().map(|c| outcome(c, (self.valid)(c))).collect();
        self.memory.extend(outcomes.iter().map(|o| (o.configuration.clone(), o.clone())));
        Ok(outcomes)
    }

    fn test_in_order(&mut self, candidates: &[Configuration], ahead: &LookAhead, _jobs: usize) -> anyhow::Result<Vec<Outcome>> {
        let first = candidates.iter().position(|c| (self.valid)(c));
        // The candidate's successor if one is valid, the round after if none is.
        let ahead: Vec<Configuration> = match first {
            Some(j) => ahead.after(j).cloned().into_iter().collect(),
            None => ahead.if_none_valid.clone(),
        };
        for (n, successor) in ahead.into_iter().enumerate() {
            self.deeper += usize::from(n > 0);
            assert!(!self.memory.contains_key(&successor), "a known successor: {successor}");
            let valid = (self.valid)(&successor);
            self.memory.insert(successor.clone(), outcome(&successor, valid));
            self.speculated.push(successor);
            self.fallbacks += usize::from(first.is_none());
            if valid {
                break;
            }
        }
        let end = first.map_or(candidates.len(), |j| j + 1);
        self.test(&candidates[..end])
    }

    fn recall(&mut self, configuration: &Configuration) -> Option<Outcome> {
        let known = self.memory.get(configuration)?.clone();
        self.recalled.insert(configuration.clone());
        Some(Outcome { cached: true, build_seconds: 0.0, run_seconds: 0.0, ..known })
    }
}

#[test]
fn successors_given_for_speculation_are_what_the_search_tests_next() {
    let (mut speculations, mut fallbacks, mut deeper) = (0, 0, 0);
    for seed in 0..300 {
        let mut random = Random(seed);
        let count = 2 + random.below(24);
        let ladder = if seed % 2 == 0 { Ladder::ieee() } else { Ladder::bf16() };
        let units = units(count);
        let mut valid = random_monotone_oracle(&mut random, count, &ladder);
        for algorithm in ALGORITHMS {
            let plain = run_from_top(&units, &ladder, options(algorithm), &mut FakeOracle::new(&mut valid));
            let mut oracle = SpeculatingOracle {
                valid: &mut valid,
                memory: HashMap::new(),
                speculated: Vec::new(),
                recalled: HashSet::new(),
                fallbacks: 0,
                deeper: 0,
            };
            let result = run_from_top(&units, &ladder, options(algorithm), &mut oracle);
            assert_eq!(result.configuration, plain.configuration, "seed {seed}, {algorithm:?}");
            for successor in &oracle.speculated {
                assert!(oracle.recalled.contains(successor), "seed {seed}, {algorithm:?}: {successor} was never tested");
            }
            speculations += oracle.speculated.len();
            fallbacks += oracle.fallbacks;
            deeper += oracle.deeper;
        }
    }
    assert!(speculations > 300, "only {speculations} speculations");
    assert!(fallbacks > 100, "only {fallbacks} tests of rounds after one without a valid candidate");
    assert!(deeper > 100, "only {deeper} tests of rounds after past their first");
    println!("{speculations} speculations, {fallbacks} of rounds after, {deeper} past their first test");
}
