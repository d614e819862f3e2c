//! Unit tests of the heals: finding the expression an error names, and the heals written there.

use super::find::{balanced, cast_at, in_constant, literals_in_text, receiver_of, widest_at};
use super::rules::{conversion_args, elaborated_literal_ident, from_stochastic, literal_argument_receiver, native_operand, scalar_left_of_container};
use super::types::{dynamic, lent_as, qualified, slice_element};
use super::*;
use crate::splice::splice;

#[test]
fn an_elaborated_literal_rustc_cannot_type_is_found_by_its_path_or_its_call() {
    let text = "f(::fptune::__rt::lit::<f64>(0.5f64, 0.5f32), x)";
    let lit = text.find("lit::<").unwrap();
    assert_eq!(elaborated_literal_ident(text, (lit, lit + 3)), Some((lit, lit + 3)));
    assert_eq!(elaborated_literal_ident(text, (2, lit + 3)), Some((lit, lit + 3)));
    assert_eq!(elaborated_literal_ident(text, (2, text.len() - 4)), Some((lit, lit + 3)));
    assert_eq!(elaborated_literal_ident(text, (text.len() - 2, text.len() - 1)), None);
    let heal = Heal { file: "f".into(), start: lit, end: lit + 3, fix: Fix::TypedLiteral, why: String::new() };
    assert_eq!(splice(text, &heal.edits()).unwrap().text, "f(::fptune::__rt::typed_lit::<f64>(0.5f64, 0.5f32), x)");
}

#[test]
fn a_literal_given_to_a_method_of_a_path_takes_the_receivers_type() {
    let text = "fn f() { acc += s.v.powf(::fptune::__rt::lit::<f64>(1.5f64, 1.5f32)); g(s).powf(::fptune::__rt::lit::<f64>(2.0f64, 2.0f32)); s.run(::fptune::__rt::lit::<f64>(1.0f64, 1.0f32)); }";
    let first = text.find("lit::<").unwrap();
    let (receiver, open) = literal_argument_receiver(text, (first, first + 3)).expect("a method's argument");
    assert_eq!(receiver, "s.v");
    let heal = Heal { file: "f".into(), start: first, end: open + 1, fix: Fix::LiteralLike(receiver), why: String::new() };
    let healed = splice(text, &heal.edits()).unwrap().text;
    assert!(healed.contains("s.v.powf(::fptune::__rt::lit_like(&(s.v), 1.5f64, 1.5f32))"), "{healed}");
    // A receiver that would be evaluated twice is not written again.
    let second = text.find("lit::<f64>(2.0").unwrap();
    assert_eq!(literal_argument_receiver(text, (second, second + 3)), None);
    // A method of the program's own takes what its parameter says.
    let third = text.rfind("lit::<").unwrap();
    assert_eq!(literal_argument_receiver(text, (third, third + 3)), None);
    // A negated literal, in parentheses or not.
    let text = "fn f() { a.copysign(-::fptune::__rt::lit::<f64>(1.0f64, 1.0f32)); a.max((-::fptune::__rt::lit::<f64>(0.5f64, 0.5f32))); }";
    for at in text.match_indices("lit::<").map(|(i, _)| i) {
        assert_eq!(literal_argument_receiver(text, (at, at + 3)).map(|r| r.0), Some("a".to_string()), "{at}");
    }
}

#[test]
fn a_bound_of_the_crates_own_trait_on_a_knob_is_named() {
    assert_eq!(knob_trait_bound("the trait bound `fptune::__rt::Knob<f64, 0>: Real` is not satisfied"), Some("Real"));
    assert_eq!(knob_trait_bound("the trait bound `Knob<f64, { 3 | CONSTANT }>: geo::Real<f64>` is not satisfied"), Some("geo::Real<f64>"));
    assert_eq!(knob_trait_bound("the trait bound `Stochastic<f32>: From<Stochastic<f64>>` is not satisfied"), None);
    assert_eq!(knob_trait_bound("mismatched types"), None);
}

#[test]
fn values_of_run_time_format_are_floats_too() {
    assert!(float_shaped("Stochastic<f64>", "fptune::__rt::DynStochastic"));
    assert!(float_shaped("Vec<Stochastic<f64>>", "Vec<fptune::__rt::Knob<f64, 3>>"));
    assert!(float_shaped("f64", "Knob<f64, { 4 | ::fptune::__rt::CONSTANT }, DynNative>"));
    assert!(dynamic("DynStochastic") && !dynamic("Stochastic<f64>"));
    assert_eq!(qualified("Stochastic<f64>").as_deref(), Some(":: fptune :: Stochastic < :: fptune :: __rt :: primitive :: f64 >"));
    assert_eq!(
        qualified("Vec<fptune::__rt::Knob<f64, 3>>").as_deref(),
        Some("Vec < :: fptune :: __rt :: Knob < :: fptune :: __rt :: primitive :: f64 , 3 > >")
    );
    assert_eq!(qualified("V3"), None);
}

#[test]
fn a_lent_table_is_stored_into_the_type_lent_with_its_own_length() {
    let slice = "&[fptune::__rt::Knob<f64, 0>]";
    assert_eq!(lent_as(slice, "&[Knob<f64, {0 | CONSTANT}, DynNative>; 4]").as_deref(), Some("[fptune::__rt::Knob<f64, 0>; 4]"));
    assert_eq!(lent_as(slice, "&Vec<Knob<f64, 1>>").as_deref(), Some("Vec<fptune::__rt::Knob<f64, 0>>"));
    assert_eq!(lent_as("&[Knob<f64, 0>; 2]", "&[Knob<f64, 1>; 2]").as_deref(), Some("[Knob<f64, 0>; 2]"));
    assert_eq!(lent_as("&Knob<f64, 0>", "&Knob<f64, 1>").as_deref(), Some("Knob<f64, 0>"));
    assert_eq!(lent_as(slice, "&Foo"), None);
    assert_eq!(slice_element("&[Stochastic<f64>]"), Some("Stochastic<f64>"));
    assert_eq!(slice_element("&[f64; 2]"), None);
    let text = "weigh(t, x)";
    let heal = Heal { file: "f".into(), start: 6, end: 7, fix: Fix::LendCopy(None), why: String::new() };
    assert_eq!(splice(text, &heal.edits()).unwrap().text, "weigh(&::fptune::__rt::to_stochastic(&(t)[..]), x)");
}

#[test]
fn float_kinds_are_told_apart_from_other_types() {
    assert!(float_shaped("Stochastic<f64>", "f64"));
    assert!(float_shaped("Vec<Stochastic<f32>>", "Vec<f32>"));
    assert!(float_shaped("Stochastic<f64>", "{float}"));
    assert!(!float_shaped("Stochastic<f64>", "usize"));
    assert!(!float_shaped("V3", "f64"));
    assert!(!float_shaped("f64", "f64"));
}

#[test]
fn casts_and_receivers_are_found_by_their_places() {
    let text = "fn f(t: f64) -> i64 { let y = (t * 2.0) as i64; t.foo(3) + y }\n";
    let start = text.find("(t * 2.0) as i64").expect("cast");
    let (end_operand, ty) = cast_at(text, (start, start + "(t * 2.0) as i64".len())).expect("found");
    assert_eq!(&text[start..end_operand], "(t * 2.0)");
    assert_eq!(ty, "i64");
    let m = text.find("foo").expect("method");
    let r = receiver_of(text, (m, m + 3)).expect("receiver");
    assert_eq!(&text[r.0..r.1], "t");
    let heal = Heal { file: "f".into(), start, end: start + 16, fix: Fix::Cast { operand_end: end_operand, ty }, why: String::new() };
    let out = splice(text, &heal.edits()).expect("edits");
    assert!(out.text.contains("let y = ::fptune::__rt::cast::<i64, _>((t * 2.0));"), "{}", out.text);
}

#[test]
fn in_a_macros_tokens_receivers_and_literals_are_found_by_text() {
    let text = "macro_rules! m { ($x:expr) => { (a.b(c)[1]).to_bits() + nu.to_bits() + f(::fptune::__rt::lit::<f64>(1e-5f64, 1e-5f32)) }; }\n";
    let m = text.find("to_bits").expect("first");
    let r = receiver_of(text, (m, m + 7)).expect("receiver");
    assert_eq!(&text[r.0..r.1], "(a.b(c)[1])");
    let n = text.rfind("to_bits").expect("second");
    let r = receiver_of(text, (n, n + 7)).expect("receiver");
    assert_eq!(&text[r.0..r.1], "nu");
    let call = text.find("f(::").expect("call");
    let lits = literals_in_text(text, (call, text.rfind(')').expect("end")));
    assert_eq!(lits.len(), 1);
    assert_eq!(&text[lits[0].0..lits[0].1], "::fptune::__rt::lit::<f64>(1e-5f64, 1e-5f32)");
    assert!(balanced("(a, b)") && !balanced("a, b") && !balanced("a; b"));
}

#[test]
fn the_value_a_first_token_stands_for_is_the_operation_it_starts() {
    let text = "fn f() { let v = S { imag: r46 * *x, re: a }; g(zeta - z); }\n";
    let at = |needle: &str| {
        let a = text.find(needle).expect("needle");
        (a, a + needle.len())
    };
    let r = widest_at(text, at("r46"));
    assert_eq!(&text[r.0..r.1], "r46 * *x");
    let z = widest_at(text, at("zeta"));
    assert_eq!(&text[z.0..z.1], "zeta - z");
    let a = widest_at(text, at("a }"));
    assert_eq!(&text[a.0..a.1], "a }");
}

#[test]
fn constants_are_told_from_code() {
    let text = "const C: S = S { a: 1.5 };\nfn f() -> f64 { 1.5 }\n";
    let first = text.find("1.5").expect("a");
    assert!(in_constant(text, (first, first + 3)));
    let second = text.rfind("1.5").expect("b");
    assert!(!in_constant(text, (second, second + 3)));
}

#[test]
fn an_iterator_of_the_other_kind_of_float_is_converted_item_by_item() {
    use super::rules::iterator_items;
    let built = "a value of type `Vec<Stochastic<f64>>` cannot be built from an iterator over elements of type `f64`";
    assert_eq!(iterator_items(built), Some(Fix::MapItems { stochastic: true, deref: false }));
    let summed = "a value of type `f64` cannot be made by summing an iterator over elements of type `&Stochastic<f64>`";
    assert_eq!(iterator_items(summed), Some(Fix::MapItems { stochastic: false, deref: true }));
    // The single build: a value computed from several units has a run-time format; the
    // collection's element is the knob's.
    let single = "a value of type `Vec<fptune::__rt::Knob<f64, 11>>` cannot be built from an iterator over elements of type `fptune::__rt::DynStochastic`";
    let fix = iterator_items(single).expect("a heal");
    let Fix::StoreItems { ty, deref: false } = fix.clone() else { panic!("{fix:?}") };
    assert_eq!(ty.replace(' ', ""), "::fptune::__rt::Knob<::fptune::__rt::primitive::f64,11>");
    let text = "x = v.iter().map(|t| t * h).collect();";
    let at = text.find("collect").unwrap();
    let heal = Heal { file: "f".into(), start: at, end: at + 7, fix, why: String::new() };
    assert_eq!(
        splice(text, &heal.edits()).unwrap().text,
        format!("x = v.iter().map(|t| t * h).map(|x| <_ as ::fptune::__rt::Store<{ty}>>::store(x)).collect();")
    );
    let summed = "a value of type `fptune::__rt::Knob<f32, 2>` cannot be made by summing an iterator over elements of type `&fptune::__rt::DynStochastic`";
    assert!(matches!(iterator_items(summed), Some(Fix::StoreItems { deref: true, .. })));
    // Two stochastic formats are a configuration's business, not a heal's.
    let formats = "a value of type `Vec<Stochastic<f32>>` cannot be built from an iterator over elements of type `Stochastic<f64>`";
    assert_eq!(iterator_items(formats), None);
    let text = "let v: Vec<Sf64> = (0..n)\n    .map(|i| i as f64)\n    .collect();";
    let at = text.find("collect").unwrap();
    let heal = Heal { file: "f".into(), start: at, end: at + 7, fix: Fix::MapItems { stochastic: true, deref: false }, why: String::new() };
    assert_eq!(
        splice(text, &heal.edits()).unwrap().text,
        "let v: Vec<Sf64> = (0..n)\n    .map(|i| i as f64)\n    .map(|x| ::fptune::__rt::to_stochastic(x)).collect();"
    );
    assert!(!heal.lossy());
}

#[test]
fn a_generic_conversion_from_f64_is_given_the_primitive() {
    // `fn scale<T: From<f64>>(x: T, k: f64) -> T { x * T::try_from(k).unwrap() }`: `k` is
    // stochastic in the conversion's build, `T` converts from `f64` only.
    assert!(from_stochastic("the trait bound `T: TryFrom<Stochastic<f64>>` is not satisfied"));
    assert!(from_stochastic("the trait bound `T: From<fptune::Stochastic<f32>>` is not satisfied"));
    assert!(!from_stochastic("the trait bound `T: From<f64>` is not satisfied"));
    let text = "fn f() { x * T::try_from(k).unwrap() }";
    let path = text.find("T::try_from").unwrap();
    let k = text.find("(k)").unwrap() + 1;
    assert_eq!(conversion_args(text, (path, path + "T::try_from".len())), [(k, k + 1)]);
    assert_eq!(conversion_args(text, (0, 2)), []);
}

#[test]
fn types_rustc_shortened_or_left_open_have_the_shape_they_show() {
    assert!(float_shaped("ArrayBase<OwnedRepr<Stochastic<f64>>, _>", "ArrayBase<OwnedRepr<{float}>, Dim<[usize; 2]>>"));
    assert!(float_shaped("ArrayBase<OwnedRepr<Stochastic<f64>>, _>", "ArrayBase<OwnedRepr<{float}>, ...>"));
    assert!(!float_shaped("ArrayBase<OwnedRepr<Stochastic<f64>>, _>", "Vec<{float}>"));
    assert!(!float_shaped("Foo<_>", "Foo<usize>"));
}

#[test]
fn a_primitive_operand_beside_a_stochastic_one_is_named() {
    let m = "the method `__fp_mul` exists for reference `&&fptune::__rt::Pair<Complex<f64>, Stochastic<f64>>`, but its trait bounds were not satisfied";
    assert_eq!(native_operand(m), Some(true));
    let m = "the method `__fp_add` exists for reference `&&&Pair<&Matrix<Stochastic<f32>, Const<3>, Const<1>>, Matrix<f64, Const<3>, Const<1>>>`, but its trait bounds were not satisfied";
    assert_eq!(native_operand(m), Some(false));
    let m = "the method `__fp_mul` exists for reference `&&&Pair<&Matrix<Knob<f64, 0>, Dyn, Const<1>>, DynStochastic>`, but its trait bounds were not satisfied";
    assert_eq!(native_operand(m), None);
}

#[test]
fn a_stochastic_scalar_left_of_an_array_or_matrix_is_named() {
    let m = "the method `__fp_mul` exists for reference `&&&Pair<Stochastic<f64>, &ArrayBase<ViewRepr<&Stochastic<f64>>, Dim<[usize; 2]>>>`, but its trait bounds were not satisfied";
    assert!(scalar_left_of_container(m));
    let m = "the method `__fp_sub` exists for reference `&&&Pair<fptune::__rt::Knob<f64, 3>, Matrix<Knob<f64, 3>, Dyn, Dyn, VecStorage<Knob<f64, 3>, Dyn, Dyn>>>`, but its trait bounds were not satisfied";
    assert!(scalar_left_of_container(m));
    // The array on the left, or a complex scalar: not this case.
    let m = "the method `__fp_mul` exists for reference `&&&Pair<&ArrayBase<OwnedRepr<Stochastic<f64>>, Dim<[usize; 1]>>, Stochastic<f64>>`, but its trait bounds were not satisfied";
    assert!(!scalar_left_of_container(m));
    let m = "the method `__fp_mul` exists for reference `&&&Pair<Complex<Stochastic<f64>>, &ArrayBase<OwnedRepr<Complex<Stochastic<f64>>>, Dim<[usize; 1]>>>`, but its trait bounds were not satisfied";
    assert!(!scalar_left_of_container(m));
}
