//! Unit tests of the probe build: reading rustc's messages, couplings, units and rounds.

use super::*;
use std::collections::BTreeSet;
use crate::model::{Coupling, FloatFormat, Knob, KnobKind, LeafSpan};

fn knob(id: usize, name: &str, group: Option<&str>) -> Knob {
    Knob { group: group.map(str::to_string), ..Knob::for_test(id, name) }
}

fn knobs(n: usize) -> Vec<Knob> {
    (0..n).map(|i| knob(i, &format!("k{i}"), None)).collect()
}

fn diag(rendered: &str, file: &str, line: usize) -> DiagnosticLike {
    let message = rendered
        .lines()
        .next()
        .and_then(|l| l.split_once(": "))
        .map_or_else(String::new, |(_, m)| m.to_string());
    DiagnosticLike { message, rendered: rendered.into(), file: Some(file.into()), line: Some(line) }
}

// Rendered diagnostics captured from real `cargo build --message-format=json` runs of probe
// sources (rustc 1.95), verbatim.

const SHARED_SLICE: &str = r##"error[E0308]: mismatched types
  --> src/main.rs:16:14
   |
16 |         norm(&y)
   |         ---- ^^ expected `&[Probe<f64, 0>]`, found `&Vec<Probe<f64, 1>>`
   |         |
   |         arguments to this function are incorrect
   |
   = note: expected reference `&[fptune::__rt::Probe<f64, 0>]`
              found reference `&Vec<fptune::__rt::Probe<f64, 1>>`
note: function defined here
  --> src/main.rs:4:8
   |
 4 |     fn norm(#[tune] x: &[Probe<f64, 0>]) -> f64 {
   |        ^^^^         -------------------

"##;

const PLAIN_SLICE: &str = r##"error[E0308]: mismatched types
  --> src/main.rs:20:19
   |
20 |         plain_sum(&z)
   |         --------- ^^ expected `&[f64]`, found `&Vec<Probe<f64, 2>>`
   |         |
   |         arguments to this function are incorrect
   |
   = note: expected reference `&[f64]`
              found reference `&Vec<fptune::__rt::Probe<f64, 2>>`
note: function defined here
  --> src/main.rs:7:8
   |
 7 |     fn plain_sum(x: &[f64]) -> f64 {
   |        ^^^^^^^^^ ---------

"##;

const PUSH_LITERAL: &str = r##"error[E0308]: mismatched types
  --> src/main.rs:24:16
   |
24 |         w.push(1.0);
   |           ---- ^^^ expected `Probe<f64, 3>`, found floating-point number
   |           |
   |           arguments to this method are incorrect
   |
   = note: expected struct `fptune::__rt::Probe<f64, 3>`
                found type `{float}`
note: method defined here
  --> /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/alloc/src/vec/mod.rs:991:11
help: try wrapping the expression in `fptune::__rt::Probe`
   |
24 |         w.push(fptune::__rt::Probe(1.0));
   |                ++++++++++++++++++++   +

"##;

const INTO_LITERAL_VEC: &str = r##"error[E0308]: mismatched types
  --> src/main.rs:28:16
   |
28 |         v.push(s);
   |           ---- ^ expected floating-point number, found `Probe<f64, 5>`
   |           |
   |           arguments to this method are incorrect
   |
   = note: expected type `{float}`
            found struct `fptune::__rt::Probe<f64, 5>`
note: method defined here
  --> /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/alloc/src/vec/mod.rs:991:11

"##;

const SELF_METHOD_ELIDED: &str = r##"error[E0308]: mismatched types
    --> src/main.rs:49:48
     |
  49 |         let mx = m.iter().fold(n, |a, b| a.max(*b));
     |                                            --- ^^ expected `14`, found `13`
     |                                            |
     |                                            arguments to this method are incorrect
     |
     = note: expected struct `fptune::__rt::Probe<_, 14>`
                found struct `fptune::__rt::Probe<_, 13>`
note: method defined here
    --> /work/main/stochastic/src/rt.rs:1450:20
     |
1450 |               pub fn max(self, o: Self) -> Self {
     |                      ^^^
...
1481 | / probe_math!(sqrt, cbrt, abs, exp, exp2, ln, log10, log2, sin, cos, tan, asin, acos, atan, sinh,
1482 | |     cosh, tanh, floor, ceil, trunc, round, signum, recip, to_degrees, to_radians);
     | |_________________________________________________________________________________- in this macro invocation
     = note: this error originates in the macro `probe_math` (in Nightly builds, run with -Z macro-backtrace for more info)

"##;

const TUPLES: &str = r##"error[E0308]: mismatched types
 --> src/main.rs:8:42
  |
8 |     let w: &Vec<(f64, Probe<f64, 23>)> = v;
  |            ---------------------------   ^ expected `&Vec<(f64, Probe<f64, 23>)>`, found `&Vec<(Probe<f64, 22>, f64)>`
  |            |
  |            expected due to this
  |
  = note: expected reference `&Vec<(f64, fptune::__rt::Probe<f64, 23>)>`
             found reference `&Vec<(fptune::__rt::Probe<f64, 22>, f64)>`

"##;

const UNTUNED_ADD_LITERAL: &str = r##"error[E0308]: mismatched types
  --> src/main.rs:10:19
   |
10 |     let y = s.b + 1.0;
   |             ---   ^^^ expected `Probe<f64, 21>`, found floating-point number
   |             |
   |             expected because this is `fptune::__rt::Probe<f64, 21>`
   |
   = note: expected struct `fptune::__rt::Probe<f64, 21>`
                found type `{float}`
help: try wrapping the expression in `fptune::__rt::Probe`
   |
10 |     let y = s.b + fptune::__rt::Probe(1.0);
   |                   ++++++++++++++++++++   +

"##;

const HALF_AND_DOUBLE: &str = r##"error[E0308]: mismatched types
  --> src/main.rs:12:19
   |
12 |     let q = s.a + s.b;
   |                   ^^^ expected `Probe<f16, 20>`, found `Probe<f64, 21>`
   |
   = note: expected struct `fptune::__rt::Probe<fptune::f16, 20>`
              found struct `fptune::__rt::Probe<f64, 21>`

"##;

const COLLECT: &str = r##"error[E0277]: a value of type `Vec<fptune::__rt::Probe<f64, 11>>` cannot be built from an iterator over elements of type `fptune::__rt::Probe<f64, 10>`
  --> src/main.rs:42:64
   |
42 |         #[tune] let c: Vec<Probe<f64, 11>> = b.iter().copied().collect();
   |                                                                ^^^^^^^ value of type `Vec<fptune::__rt::Probe<f64, 11>>` cannot be built from `std::iter::Iterator<Item=fptune::__rt::Probe<f64, 10>>`
   |
help: the trait `FromIterator<fptune::__rt::Probe<_, 10>>` is not implemented for `Vec<fptune::__rt::Probe<f64, 11>>`
      but trait `FromIterator<fptune::__rt::Probe<_, 11>>` is implemented for it
  --> /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/alloc/src/vec/mod.rs:3862:0
note: required by a bound in `collect`
  --> /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/iter/traits/iterator.rs:2051:4

"##;

const TRAIT_BOUND: &str = r##"error[E0277]: the trait bound `f64: From<fptune::__rt::Probe<f64, 16>>` is not satisfied
  --> src/main.rs:55:17
   |
55 |         is_into(k) + k.sqrt().0
   |         ------- ^ the trait `From<fptune::__rt::Probe<f64, 16>>` is not implemented for `f64`
   |         |
   |         required by a bound introduced by this call
   |
   = help: the following other types implement trait `From<T>`:
             `f64` implements `From<bool>`
             `f64` implements `From<f16>`
             `f64` implements `From<f32>`
           and 5 others
   = note: required for `fptune::__rt::Probe<f64, 16>` to implement `Into<f64>`
note: required by a bound in `is_into`
  --> src/main.rs:53:23
   |
53 |     pub fn is_into<T: Into<f64>>(x: T) -> f64 { x.into() }
   |                       ^^^^^^^^^ required by this bound in `is_into`

"##;

fn pairs(c: &Couplings) -> Vec<(usize, usize)> {
    c.pairs.iter().map(|p| p.knobs).collect()
}

fn ids(list: &[Pin]) -> Vec<usize> {
    list.iter().map(|p| p.knob).collect()
}

#[test]
fn a_slice_passed_to_another_knob_pairs_them() {
    let c = couplings(&[diag(SHARED_SLICE, "src/main.rs", 16)], &knobs(30));
    assert_eq!(pairs(&c), [(0, 1)]);
    assert_eq!(c.pairs[0].place, "src/main.rs:16");
    assert!(c.pinned.is_empty() && c.no_16bit.is_empty() && c.unexplained.is_empty());
}

#[test]
fn a_knob_passed_as_a_plain_slice_is_pinned() {
    let c = couplings(&[diag(PLAIN_SLICE, "src/main.rs", 20)], &knobs(30));
    assert!(c.pairs.is_empty());
    assert_eq!(c.pinned, [Pin { knob: 2, place: "src/main.rs:20".into(), meets: "f64".into() }]);
}

#[test]
fn a_literal_given_to_a_knob_either_way_bars_16_bits() {
    let c = couplings(
        &[diag(PUSH_LITERAL, "src/main.rs", 24), diag(INTO_LITERAL_VEC, "src/main.rs", 28), diag(UNTUNED_ADD_LITERAL, "src/main.rs", 10)],
        &knobs(30),
    );
    assert_eq!(ids(&c.no_16bit), [3, 5, 21]);
    assert!(c.pairs.is_empty() && c.pinned.is_empty() && c.unexplained.is_empty());
}

#[test]
fn a_literal_given_to_a_const_knob_is_its_16_bit_constant() {
    let mut ks = knobs(30);
    ks[3].kind = KnobKind::Const;
    let c = couplings(&[diag(PUSH_LITERAL, "src/main.rs", 24)], &ks);
    assert!(c.no_16bit.is_empty() && c.unexplained.is_empty());
}

#[test]
fn elided_formats_in_notes_still_name_the_knobs() {
    let c = couplings(&[diag(SELF_METHOD_ELIDED, "src/main.rs", 49)], &knobs(30));
    assert_eq!(pairs(&c), [(13, 14)]);
}

#[test]
fn tuples_are_aligned_position_by_position() {
    let c = couplings(&[diag(TUPLES, "src/main.rs", 8)], &knobs(30));
    assert!(c.pairs.is_empty());
    assert_eq!(ids(&c.pinned), [22, 23]);
}

#[test]
fn probes_of_different_formats_pair() {
    let c = couplings(&[diag(HALF_AND_DOUBLE, "src/main.rs", 12)], &knobs(30));
    assert_eq!(pairs(&c), [(20, 21)]);
}

#[test]
fn a_collect_across_knobs_pairs_them() {
    let c = couplings(&[diag(COLLECT, "src/main.rs", 42)], &knobs(30));
    assert_eq!(pairs(&c), [(10, 11)]);
    assert!(c.unexplained.is_empty());
}

#[test]
fn a_trait_the_probe_lacks_is_unexplained_not_pinned() {
    let c = couplings(&[diag(TRAIT_BOUND, "src/main.rs", 55)], &knobs(30));
    assert!(c.pairs.is_empty() && c.pinned.is_empty());
    assert_eq!(c.unexplained.len(), 1);
    assert_eq!(c.unexplained[0].to_string(), "src/main.rs:55: the trait bound `f64: From<fptune::__rt::Probe<f64, 16>>` is not satisfied");
}

#[test]
fn an_operator_between_a_probe_and_a_plain_float_pins_it() {
    let d = DiagnosticLike {
        message: "cannot add `f64` to `Probe<f64, 4>`".into(),
        rendered: "error[E0369]: cannot add `f64` to `Probe<f64, 4>`\n".into(),
        file: Some("src/lib.rs".into()),
        line: Some(3),
    };
    let c = couplings(&[d], &knobs(5));
    assert_eq!(ids(&c.pinned), [4]);
}

#[test]
fn probe_ids_that_are_not_knobs_are_ignored() {
    let c = couplings(&[diag(SHARED_SLICE, "src/main.rs", 16)], &knobs(1));
    assert!(c.pairs.is_empty());
    assert_eq!(c.unexplained.len(), 1);
}

#[test]
fn slots_read_every_spelling_rustc_uses() {
    assert_eq!(
        slots("&mut Vec<(fptune::__rt::Probe<_, 9>, Probe<half::f16, 10_u32>, half::bf16, {float}, _, i32)>"),
        [Slot::Probe(vec![9]), Slot::Probe(vec![10]), Slot::Plain("bf16".into()), Slot::Literal, Slot::Hole]
    );
    assert_eq!(slots("floating-point number"), [Slot::Literal]);
    assert_eq!(slots("[Probe<f64, 3>; 4]"), [Slot::Probe(vec![3])]);
    // The tags the runtime writes: one knob, or the knobs a value was computed from.
    assert_eq!(
        slots("Vec<fptune::__rt::Probe<f32, fptune::__rt::Id<4>>>, Probe<f64, ((Id<3>, Id<12>), (Id<3>, Id<7_u32>))>"),
        [Slot::Probe(vec![4]), Slot::Probe(vec![3, 12, 7])]
    );
    assert_eq!(slots("f64x2"), []);
}

#[test]
fn expected_found_reads_labels_and_notes_but_not_other_sentences() {
    let pairs = expected_found(UNTUNED_ADD_LITERAL);
    assert_eq!(
        pairs,
        [
            ("Probe<f64, 21>".to_string(), "{float}".to_string()),
            ("fptune::__rt::Probe<f64, 21>".to_string(), "{float}".to_string()),
        ]
    );
    assert!(expected_found("expected due to this\nfound `x`").is_empty());
}

#[test]
fn coloured_diagnostics_read_like_plain_ones() {
    let coloured = PLAIN_SLICE
        .replace("expected `", "\u{1b}[0m\u{1b}[1m\u{1b}[38;5;9mexpected `")
        .replace("found reference", "\u{1b}[1mfound\u{1b}[0m reference");
    let c = couplings(&[diag(&coloured, "src/main.rs", 20)], &knobs(30));
    assert_eq!(ids(&c.pinned), [2]);
}

#[test]
fn the_place_falls_back_to_the_rendered_arrow() {
    let d = DiagnosticLike { message: "m".into(), rendered: SHARED_SLICE.into(), file: None, line: None };
    assert_eq!(d.place(), "src/main.rs:16");
}

#[test]
fn a_builds_errors_convert_with_their_primary_place_and_warnings_are_left_out() {
    let message = r#"{"message":"mismatched types","code":{"code":"E0308","explanation":null},"level":"error",
            "spans":[{"file_name":"src/lib.rs","byte_start":0,"byte_end":1,"line_start":42,"line_end":42,
              "column_start":1,"column_end":2,"is_primary":true,"text":[],"label":null,"suggested_replacement":null,
              "suggestion_applicability":null,"expansion":null}],
            "children":[],"rendered":"error[E0308]: mismatched types\n"}"#
        .replace('\n', "");
    let line = |m: &str| {
        format!(
            r#"{{"reason":"compiler-message","package_id":"path+file:///s/app#0.1.0","manifest_path":"/s/app/Cargo.toml","target":{{"kind":["lib"],"crate_types":["lib"],"name":"app","src_path":"/s/app/src/lib.rs","edition":"2021","doc":true,"doctest":false,"test":true}},"message":{m}}}"#
        )
    };
    let stdout = format!("{}\n{}\n", line(&message), line(&message.replace(r#""level":"error""#, r#""level":"warning""#)));
    let errors = crate::cargo::errors_in(&stdout);
    assert_eq!(errors.len(), 1, "the warning is no error");
    let like = DiagnosticLike::from_error(&errors[0]);
    assert_eq!(like.place(), "src/lib.rs:42");
    assert_eq!(like.message, "mismatched types");
    assert_eq!(like.rendered, "error[E0308]: mismatched types\n");
}

#[test]
fn transitive_pairs_make_one_unit_and_order_is_by_smallest_knob() {
    let c = Couplings {
        pairs: vec![
            Pair { knobs: (3, 4), place: "a:1".into() },
            Pair { knobs: (1, 3), place: "a:2".into() },
        ],
        ..Couplings::default()
    };
    let u = units(&knobs(5), &c);
    let sets: Vec<Vec<usize>> = u.iter().map(|u| u.knobs.clone()).collect();
    assert_eq!(sets, [vec![0], vec![1, 3, 4], vec![2]]);
    assert_eq!(u.iter().map(|u| u.id).collect::<Vec<_>>(), [0, 1, 2]);
    assert_eq!(u[1].coupling, Coupling::Rustc { place: "a:1".into() });
    assert_eq!(u[0].coupling, Coupling::Alone);
    assert!(u.iter().all(|u| u.pinned.is_none()));
}

#[test]
fn user_groups_merge_and_are_the_first_reason() {
    let mut ks = knobs(5);
    ks[0].group = Some("g".into());
    ks[4].group = Some("g".into());
    ks[2].group = Some("lonely".into());
    let c = Couplings { pairs: vec![Pair { knobs: (1, 4), place: "b:7".into() }], ..Couplings::default() };
    let u = units(&ks, &c);
    let sets: Vec<Vec<usize>> = u.iter().map(|u| u.knobs.clone()).collect();
    assert_eq!(sets, [vec![0, 1, 4], vec![2], vec![3]]);
    assert_eq!(u[0].coupling, Coupling::Group { name: "g".into() });
    assert_eq!(u[1].coupling, Coupling::Alone);
}

#[test]
fn a_pinned_knob_pins_its_unit_and_literals_cap_theirs() {
    let c = Couplings {
        pairs: vec![Pair { knobs: (0, 2), place: "p:1".into() }],
        pinned: vec![Pin { knob: 2, place: "p:9".into(), meets: "f64".into() }],
        no_16bit: vec![Pin { knob: 3, place: "p:4".into(), meets: "{float}".into() }],
        ..Couplings::default()
    };
    let u = units(&knobs(4), &c);
    assert_eq!(u[0].knobs, [0, 2]);
    assert_eq!(u[0].pinned.as_deref(), Some("at p:9 it meets `f64`"));
    assert_eq!(u[1].pinned, None);
    let capped = units_without_16bit(&u, &c);
    assert_eq!(capped.into_iter().map(|(u, p)| (u, p.place.clone())).collect::<Vec<_>>(), [(2, "p:4".to_string())]);
}

#[test]
fn units_accept_knob_ids_that_are_not_positions() {
    let ks = vec![knob(7, "a", None), knob(3, "b", None)];
    let c = Couplings { pairs: vec![Pair { knobs: (3, 7), place: "x:1".into() }], ..Couplings::default() };
    let u = units(&ks, &c);
    assert_eq!(u.len(), 1);
    assert_eq!(u[0].knobs, [3, 7]);
}

fn leaf(line: usize, start: usize, end: usize) -> LeafSpan {
    LeafSpan { start: (line, start), end: (line, end) }
}

#[test]
fn probe_sources_rewrite_every_leaf_to_its_knobs_probe() {
    let text = "fn f() {\n    let a: Vec<f64> = v; // keep\n    let b: (f32, f32) = p;\n    let c: fptune::f16 = q;\n}\n";
    let mut a = knob(0, "a", None);
    a.leaves = vec![leaf(2, 15, 18)];
    let mut b = knob(1, "b", None);
    b.declared = FloatFormat::F32;
    b.leaves = vec![leaf(3, 12, 15), leaf(3, 17, 20)];
    let mut c = knob(2, "c", None);
    c.declared = FloatFormat::F16;
    c.leaves = vec![leaf(4, 11, 22)];
    let files = vec![("src/main.rs".to_string(), text.to_string()), ("src/other.rs".to_string(), "x".to_string())];
    let out = probe_sources(&files, &[a.clone(), b.clone(), c.clone()]).expect("rewrites");
    assert_eq!(out.len(), 1);
    assert_eq!(
        out[0].1,
        "fn f() {\n    let a: Vec<::fptune::__rt::Probe<f64, ::fptune::__rt::Id<0>>> = v; // keep\n    \
             let b: (::fptune::__rt::Probe<f32, ::fptune::__rt::Id<1>>, ::fptune::__rt::Probe<f32, ::fptune::__rt::Id<1>>) = p;\n    \
             let c: ::fptune::__rt::Probe<::fptune::f16, ::fptune::__rt::Id<2>> = q;\n}\n"
    );
    // Knobs of one unit share its smallest id; a pinned unit is written at its declared type.
    b.group = Some("g".into());
    c.group = Some("g".into());
    let mut probing = Probing::new(vec![a, b, c]);
    let merged = probing.sources(&files).expect("rewrites");
    assert!(merged[0].1.contains("Probe<::fptune::f16, ::fptune::__rt::Id<1>>"));
    probing.learn(&[diag(PLAIN_SLICE, "src/main.rs", 20)]);
    let pinned = probing.sources(&files).expect("rewrites");
    assert!(pinned[0].1.contains("let a: Vec<::fptune::__rt::Probe<f64, ::fptune::__rt::Id<0>>> = v;"), "{}", pinned[0].1);
    assert!(pinned[0].1.contains("let c: ::fptune::f16 = q;"), "{}", pinned[0].1);
}

#[test]
fn a_stale_knob_table_is_refused_with_what_to_do() {
    let mut a = knob(0, "a", None);
    a.leaves = vec![leaf(1, 4, 7)];
    let files = vec![("src/main.rs".to_string(), "let a = 1.0;\n".to_string())];
    let e = probe_sources(&files, &[a.clone()]).expect_err("stale");
    assert!(e.to_string().contains("discover them again"), "{e}");
    a.leaves = vec![leaf(9, 0, 3)];
    assert!(matches!(probe_sources(&files, &[a.clone()]), Err(SourceError::StaleLeaf { .. })));
    a.file = "src/gone.rs".into();
    assert!(matches!(probe_sources(&files, &[a]), Err(SourceError::MissingFile { .. })));
}

#[test]
fn probing_settles_once_a_round_learns_nothing() {
    let mut p = Probing::new(knobs(30));
    assert_eq!(p.learn(&[diag(SHARED_SLICE, "src/main.rs", 16), diag(PLAIN_SLICE, "src/main.rs", 20)]), Round::Again);
    // The next build names knob 1 by its unit's id 0; knob 2 is still pinned: nothing new.
    assert_eq!(p.learn(&[diag(PLAIN_SLICE, "src/main.rs", 20)]), Round::Settled);
    assert_eq!(p.rounds(), 2);
    let u = p.units();
    assert_eq!(u[0].knobs, [0, 1]);
    assert_eq!(u[1].knobs, [2]);
    assert!(u[1].pinned.is_some());
    let mut q = Probing::new(knobs(3));
    assert_eq!(q.learn(&[]), Round::Settled);
}

const MIXED_COLLECT: &str = r##"error[E0277]: a value of type `Vec<fptune::__rt::Probe<f64, fptune::__rt::Id<5>>>` cannot be built from an iterator over elements of type `fptune::__rt::Probe<f64, ((fptune::__rt::Id<2>, fptune::__rt::Id<9>), fptune::__rt::Id<3>)>`
  --> src/main.rs:63:14
   |
63 |             .collect();
   |              ^^^^^^^ value of type `Vec<fptune::__rt::Probe<f64, fptune::__rt::Id<5>>>` cannot be built from `std::iter::Iterator<Item=fptune::__rt::Probe<f64, ((fptune::__rt::Id<2>, fptune::__rt::Id<9>), fptune::__rt::Id<3>)>>`
   |
help: the trait `FromIterator<fptune::__rt::Probe<_, ((fptune::__rt::Id<2>, fptune::__rt::Id<9>), fptune::__rt::Id<3>)>>` is not implemented for `Vec<fptune::__rt::Probe<f64, fptune::__rt::Id<5>>>`
      but trait `FromIterator<fptune::__rt::Probe<_, fptune::__rt::Id<5>>>` is implemented for it
   = help: for that trait implementation, expected `fptune::__rt::Id<5>`, found `((fptune::__rt::Id<2>, fptune::__rt::Id<9>), fptune::__rt::Id<3>)`
"##;

#[test]
fn a_value_computed_from_several_knobs_couples_them_all_where_it_meets_a_type() {
    // `x = (0..n).map(|i| (b[i] - s) / a[i][i]).collect()`: natively the quotient has the widest
    // of b, s and a's formats, so x shares a type with each of them.
    let c = couplings(&[diag(MIXED_COLLECT, "src/main.rs", 63)], &knobs(30));
    assert!(c.unexplained.is_empty(), "{:?}", c.unexplained);
    let p: BTreeSet<(usize, usize)> = pairs(&c).into_iter().collect();
    let units: Vec<Vec<usize>> = units(&knobs(10), &c).into_iter().map(|u| u.knobs).filter(|k| k.len() > 1).collect();
    assert_eq!(units, [vec![2, 3, 5, 9]], "{p:?}");
    // Met by a plain float, every knob it came from is held.
    let pinned = couplings(&[diag(&MIXED_COLLECT.replace("fptune::__rt::Probe<f64, fptune::__rt::Id<5>>", "f64"), "src/main.rs", 63)], &knobs(30));
    let held: BTreeSet<usize> = pinned.pinned.iter().map(|p| p.knob).collect();
    assert_eq!(held, BTreeSet::from([2, 3, 9]));
    // Unless one of them is held there already: the widest keeps the format, the rest are free
    // (`smooth(s) * bump(s, w)` where `f64` is required and `s` pins both functions' first
    // parameters: `w` may be lowered).
    let plain = MIXED_COLLECT.replace("fptune::__rt::Probe<f64, fptune::__rt::Id<5>>", "f64");
    let one = "error[E0308]: mismatched types\n --> src/main.rs:60:14\n   |\n60 |  f(s)\n   |    ^ expected `fptune::__rt::Probe<f64, fptune::__rt::Id<3>>`, found `f64`\n";
    let c = couplings(&[diag(&plain, "src/main.rs", 63), diag(one, "src/main.rs", 60)], &knobs(30));
    let held: BTreeSet<usize> = c.pinned.iter().map(|p| p.knob).collect();
    assert_eq!(held, BTreeSet::from([3]), "{c:?}");
}

#[test]
fn probing_keeps_only_the_last_builds_unexplained_errors() {
    let mut p = Probing::new(knobs(30));
    p.learn(&[diag(TRAIT_BOUND, "src/main.rs", 55), diag(SHARED_SLICE, "src/main.rs", 16)]);
    assert_eq!(p.couplings().unexplained.len(), 1);
    p.learn(&[]);
    assert!(p.couplings().unexplained.is_empty());
    assert_eq!(pairs(p.couplings()), [(0, 1)]);
}

const SUBSET_BOUND: &str = r##"error[E0277]: the trait bound `T: SubsetOf<fptune::__rt::Probe<f64, 4>>` is not satisfied
   --> src/tableau.rs:399:14
    |
399 |             .to_subset()
    |              ^^^^^^^^^ the trait `SubsetOf<fptune::__rt::Probe<f64, 4>>` is not implemented for `T`
    |
    = note: required for `fptune::__rt::Probe<f64, 4>` to implement `SupersetOf<T>`
"##;

#[test]
fn a_bound_the_probe_cannot_read_is_tried_at_32_then_16_bits() {
    let table = knob(4, "A", None);
    let mut p = Probing::new(vec![knob(0, "x", None), table]);
    // A round learns nothing that changes the sources.
    assert_eq!(p.learn(&[diag(SUBSET_BOUND, "src/tableau.rs", 399)]), Round::Settled);
    assert_eq!(p.couplings().unexplained[0].probes, [4]);
    let trial = p.trial(FloatFormat::F32).expect("knob 4 is tried");
    assert_eq!(trial.units, [(vec![4], vec!["src/tableau.rs:399".to_string()])]);

    // rustc refuses `T: SubsetOf<f32>` too: the table keeps its declared format, and no
    // 16-bit trial follows.
    let mut held = p.clone();
    let at_f32 = SUBSET_BOUND.replace("fptune::__rt::Probe<f64, 4>", "f32");
    held.learn_trial(&trial, &[diag(&at_f32, "src/tableau.rs", 399)]);
    let unit = held.units().into_iter().find(|u| u.knobs == [4]).unwrap();
    assert_eq!(unit.pinned.as_deref(), Some("at src/tableau.rs:399 the bound `T: SubsetOf<f32>` does not hold below its declared format"));
    assert!(held.couplings().unexplained.is_empty());
    assert_eq!(held.trial(FloatFormat::F16), None);

    // At 32 bits it builds (the probe type lacked the bound): tried at 16 bits, where rustc
    // refuses it: never 16-bit.
    p.learn_trial(&trial, &[]);
    assert!(p.units().iter().all(|u| u.pinned.is_none()));
    let trial = p.trial(FloatFormat::F16).expect("knob 4 is tried at 16 bits");
    let at_f16 = SUBSET_BOUND.replace("fptune::__rt::Probe<f64, 4>", "fptune::f16");
    p.learn_trial(&trial, &[diag(&at_f16, "src/tableau.rs", 399)]);
    assert_eq!(units_without_16bit(&p.units(), p.couplings()).len(), 1);
    assert!(p.couplings().unexplained.is_empty());
}

#[test]
fn units_a_32_bit_trial_built_together_are_lowered_together() {
    let mut p = Probing::new(vec![knob(0, "x", None), knob(4, "A", None), knob(5, "B", None)]);
    let other = SUBSET_BOUND.replace("Probe<f64, 4>", "Probe<f64, 5>").replace("399", "405");
    p.learn(&[diag(SUBSET_BOUND, "src/tableau.rs", 399), diag(&other, "src/tableau.rs", 405)]);
    let trial = p.trial(FloatFormat::F32).expect("knobs 4 and 5 are tried");
    assert_eq!(trial.units.len(), 2);
    p.learn_trial(&trial, &[]);
    let units = p.units();
    assert!(units.iter().any(|u| u.knobs == [4, 5]), "{units:?}");
    assert_eq!(p.trial(FloatFormat::F16).map(|t| t.units.len()), Some(1));
}

#[test]
fn a_probe_named_twice_beside_a_plain_float_at_an_operator_is_pinned() {
    // ndarray 0.17 writes an array's element type twice: `ArrayBase<OwnedRepr<A>, D, A>`.
    let message = "error[E0599]: the method `__fp_add` exists for reference `&&&fptune::__rt::Pair<&ArrayBase<OwnedRepr<f64>, Dim<[usize; 1]>, f64>, &ArrayBase<OwnedRepr<fptune::__rt::Probe<f64, fptune::__rt::Id<4>>>, Dim<[usize; 1]>, fptune::__rt::Probe<f64, fptune::__rt::Id<4>>>>`, but its trait bounds were not satisfied\n  --> src/main.rs:40:16\n   |\n40 |         u = &u + &(&du * dt);\n   |                ^ method cannot be called due to unsatisfied trait bounds";
    let mut p = Probing::new(vec![knob(4, "dt", None)]);
    p.learn(&[diag(message, "src/main.rs", 40)]);
    let pinned: Vec<usize> = p.couplings().pinned.iter().map(|pin| pin.knob).collect();
    assert_eq!(pinned, [4], "{:?}", p.couplings());
}

#[test]
fn a_knob_that_literals_alone_initialise_is_written_as_their_container_of_its_type() {
    let message = "error[E0308]: mismatched types\n  --> src/main.rs:3:40\n   |\n3  |     let a: ArrayBase<OwnedRepr<Probe<f64, Id<8>>>, _, Probe<f64, Id<8>>> = array![[1.0, 2.0]];\n   |                                        ^^^^^^^^^^^^^^^^^^ expected `ArrayBase<OwnedRepr<Probe<f64, Id<8>>>, _, Probe<f64, Id<8>>>`, found `ArrayBase<OwnedRepr<{float}>, Dim<[usize; 2]>, {float}>`\n   |\n   = note: this error originates in the macro `array`";
    let mut p = Probing::new(vec![knob(8, "a", None)]);
    assert_eq!(p.learn(&[diag(message, "/registry/ndarray/src/macros.rs", 90)]), Round::Again, "a round more, with the value rewritten");
    assert!(p.couplings().literal_inits.contains(&("src/main.rs".to_string(), 3)), "{:?}", p.couplings());
    let text = "fn main() {\n    let n = 2;\n    let a: ::fptune::__rt::Probe<f64, ::fptune::__rt::Id<8>> = array![[1.0, 2.0]];\n    let b: f64 = 1.0;\n}\n";
    let out = super::sources::without_literal_inits(vec![("src/main.rs".into(), text.into())], &p.couplings().literal_inits);
    assert!(out[0].1.contains("= ::fptune::__rt::relit(array![[1.0, 2.0]]);"), "{}", out[0].1);
    assert!(out[0].1.contains("let b: f64 = 1.0;"), "a declaration of no probe is left as it is");
}

#[test]
fn what_a_unit_meets_is_said_in_the_users_words() {
    // Issue 44 item 11: no `__fp_add`, no rustc headline where a type or an operator is known.
    use super::messages::meets_in_user_words;
    let op = "the method `__fp_add` exists for reference `&&fptune::__rt::Pair<ArrayBase<OwnedRepr<Probe<f64, 3>>, Dim<[usize; 1]>>, Probe<f64, 4>>`, but its trait bounds were not satisfied";
    assert_eq!(meets_in_user_words(op, ""), "the operator +");
    let mismatch = "error[E0308]: mismatched types\n  |\n5 |     let x: Probe<f64, 2> = y;\n  |                            ^ expected `Probe<f64, 2>`, found `f64`\n";
    assert_eq!(meets_in_user_words("mismatched types", mismatch), "f64");
    assert_eq!(meets_in_user_words("the trait bound `fptune::__rt::Lit: From<u8>` is not satisfied", ""), "Lit: From<u8>");
    assert_eq!(meets_in_user_words("type annotations needed", ""), "type annotations needed");
}

const LITERAL_FIXES_T: &str = r##"error[E0308]: mismatched types
   --> src/main.rs:16:93
    |
 16 |                 acc += xj * Complex::from_polar(::fptune::__rt::lit::<f64>(1.0f64, 1.0f32), phase);
    |                             ------------------- arguments to this function are incorrect    ^^^^^ expected floating-point number, found `Probe<f64, 5>`
    |
    = note: expected type `{float}`
             found struct `fptune::__rt::Probe<f64, 5>`"##;

const PRODUCT_OF_LITERALS_TYPE: &str = r##"error[E0599]: the method `__fp_mul` exists for reference `&&&fptune::__rt::Pair<Complex<fptune::__rt::Probe<f64, 0>>, Complex<{float}>>`, but its trait bounds were not satisfied
  --> src/main.rs:16:27
   |
16 |                 acc += xj * Complex::from_polar(::fptune::__rt::lit::<f64>(1.0f64, 1.0f32), phase);
   |                           ^ method cannot be called due to unsatisfied trait bounds"##;

#[test]
fn a_literal_that_fixed_a_generic_parameter_stands_for_the_probe_it_met() {
    // `xj * Complex::from_polar(1.0, phase)`: natively the literal takes `phase`'s type, so the
    // product couples `xj` (knob 0) and `phase` (knob 5); in the probe build the literal fixed `T`.
    let errors = [diag(LITERAL_FIXES_T, "src/main.rs", 16), diag(PRODUCT_OF_LITERALS_TYPE, "src/main.rs", 16)];
    let c = couplings(&errors, &knobs(6));
    assert_eq!(c.pairs.iter().map(|p| p.knobs).collect::<Vec<_>>(), [(0, 5)], "{c:?}");
    // Elsewhere, the literal is only a literal.
    let alone = couplings(&[diag(PRODUCT_OF_LITERALS_TYPE, "src/main.rs", 16)], &knobs(6));
    assert!(alone.pairs.is_empty(), "{alone:?}");
}

#[test]
fn what_fixes_a_float_type_on_a_line_is_named_in_the_users_words() {
    let line = "            Complex::new(w * tones, 0.0) + Complex::from_polar(0.2 * w, 2.0 * PI * 2.0 * t as f64 + f64::EPSILON * 1e-3f64)";
    assert_eq!(
        messages::fixed_floats_on(line),
        [
            "`PI` (std's `f64` constant; `std::f32::consts::PI` is `f32`'s)",
            "the cast `as f64`",
            "`f64::EPSILON`",
            "the suffixed literal `1e-3f64`",
        ]
    );
    assert!(messages::fixed_floats_on("let e = E * x;").len() == 1);
    assert!(messages::fixed_floats_on("let x = a.exp();").is_empty());
}

const CLOSURE_AS_FN_POINTER: &str = r##"error[E0308]: mismatched types
  --> src/main.rs:18:69
   |
18 |         Rule::<::fptune::knob!(::fptune::__rt::Probe<f64, 6>)> { f: |#[tune] x: ::fptune::__rt::Probe<f64, 7>| x * x, weight: w },
   |                                                                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ expected `6`, found `7`
   |
   = note: expected fn pointer `fn(fptune::__rt::Probe<f64, 6>) -> fptune::__rt::Probe<f64, 6>`
                 found closure `{closure@src/main.rs:18:69: 18:111}`
   = note: closure has signature: `fn(fptune::__rt::Probe<f64, 7>) -> fptune::__rt::Probe<f64, 7>`"##;

#[test]
fn a_closure_given_where_a_fn_pointer_is_expected_couples_by_its_signature() {
    let c = couplings(&[diag(CLOSURE_AS_FN_POINTER, "src/main.rs", 18)], &knobs(8));
    assert_eq!(c.pairs.iter().map(|p| p.knobs).collect::<Vec<_>>(), [(6, 7)], "{c:?}");
}

const CLOSURE_SIGNATURE: &str = r##"error[E0631]: type mismatch in closure arguments
  --> src/main.rs:45:172
   |
45 | fn derivative(f: fn(::fptune::__rt::Probe<f64, ::fptune::__rt::Id<25>>) -> ::fptune::__rt::Probe<f64, ::fptune::__rt::Id<25>>) -> impl Fn(::fptune::__rt::Probe<f64, ::fptune::__rt::Id<26>>) -> ::fptune::__rt::Probe<f64, ::fptune::__rt::Id<26>> {
   |                                                                                                                                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
46 |     move |x: ::fptune::__rt::Probe<f64, ::fptune::__rt::Id<27>>| (f(x + 1e-3) - f(x - 1e-3)) / 2e-3
   |     --------------------------------------------------------------------------------------------
   |     |
   |     found signature defined here
   |     return type was inferred to be `{closure@src/main.rs:46:5: 46:73}` here
   |
   = note: expected closure signature `fn(fptune::__rt::Probe<_, fptune::__rt::Id<26>>) -> _`
              found closure signature `fn(fptune::__rt::Probe<_, fptune::__rt::Id<27>>) -> _`

"##;

#[test]
fn a_closure_signature_mismatch_pairs_its_parameters() {
    let c = couplings(&[diag(CLOSURE_SIGNATURE, "src/main.rs", 45)], &knobs(30));
    assert_eq!(c.pairs.iter().map(|p| p.knobs).collect::<Vec<_>>(), [(26, 27)], "{c:?}");
    assert!(c.pinned.is_empty(), "{c:?}");
}
