//! Assembling one benchmark's Cargo package: `Cargo.toml` (no dependencies, its own workspace)
//! and `src/main.rs` with the benchmark function, the precondition, a seeded generator of
//! inputs and a `main` printing one result per sample.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::ast::{Benchmark, Expr, Op};
use crate::codegen::{indent, Gen};
use crate::names::Names;
use crate::parse::parse_expr;
use crate::precision::{Context, Ty};
use crate::sampling::{self, Bounds, Draw};
use crate::Unsupported;

/// Choices about the generated programs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// How many inputs `main` evaluates the benchmark on.
    pub samples: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options { samples: 8 }
    }
}

/// The files of one generated package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Package {
    /// The package, directory and function name.
    pub slug: String,
    /// `Cargo.toml`.
    pub cargo_toml: String,
    /// `src/main.rs`.
    pub main_rs: String,
}

/// How many draws one input may take to satisfy the precondition.
const MAX_TRIES: usize = 10_000;

/// The longest line the generator writes where it can choose (argument lists).
const LINE_WIDTH: usize = 100;

/// The names the generated program defines or relies on, which no variable may take.
const RESERVED: &[&str] = &[
    "main",
    "draw",
    "precondition",
    "uniform",
    "uniform_int",
    "state",
    "SAMPLES",
    "MAX_TRIES",
    "SEED",
    "f32",
    "f64",
    "i64",
    "u64",
    "bool",
    "std",
    "core",
    "Some",
    "None",
    "Ok",
    "Err",
    "E",
    "LOG2_E",
    "LOG10_E",
    "LN_2",
    "LN_10",
    "PI",
    "FRAC_PI_2",
    "FRAC_PI_4",
    "FRAC_1_PI",
    "FRAC_2_PI",
    "FRAC_2_SQRT_PI",
    "SQRT_2",
    "FRAC_1_SQRT_2",
];

/// The package of benchmark `b`, named `slug`, read from `origin` (a file name, for the docs).
pub fn package(
    b: &Benchmark,
    slug: &str,
    origin: &str,
    options: &Options,
) -> Result<Package, Unsupported> {
    let name = b.name().unwrap_or(slug).to_string();
    if let Some(arg) = b.args.iter().find(|a| a.dims > 0) {
        return Err(Unsupported(format!("the tensor argument `{}`", arg.name)));
    }
    let top = Context::binary64().with_props(&b.props)?;
    let mut arg_types = Vec::new();
    for arg in &b.args {
        let ctx = top.with_props(&arg.props)?;
        arg_types.push((arg.name.clone(), ctx.ty, ctx));
    }
    let arg_names: Vec<String> = b.args.iter().map(|a| a.name.clone()).collect();
    let (pre, mut notes) = precondition(b, &arg_names)?;

    let mut reserved: Vec<&str> = RESERVED.to_vec();
    reserved.push(slug);
    let mut names = Names::new(&reserved);
    let mut symbols = arg_names.clone();
    b.body.symbols(&mut symbols);
    if let Some(pre) = &pre {
        pre.symbols(&mut symbols);
    }
    for symbol in &symbols {
        names.ident(symbol);
    }

    // The benchmark.
    let mut gen = Gen::new(&mut names);
    let mut params = Vec::new();
    for (arg, ty, _) in &arg_types {
        let rust = gen.bind(arg, *ty);
        params.push((rust, *ty));
    }
    let body = gen.function_body(&b.body, &top)?;
    if body.tail.ty == Ty::Bool {
        return Err(Unsupported("the benchmark computes a boolean".into()));
    }
    let result_ty = body.tail.ty;
    let mut consts = gen.consts.clone();
    let has_unread = gen.has_unread;
    let mut function_lines = body.lines;
    function_lines.push(body.tail.wrapped("", ""));

    // The precondition, evaluated in binary64 (the closest Rust has to FPCore's reals).
    let pre_function = match &pre {
        Some(pre) => {
            let mut gen = Gen::new(&mut names);
            for (arg, ty, _) in &arg_types {
                gen.bind(arg, *ty);
            }
            let block = gen
                .function_body(pre, &Context::binary64())
                .map_err(|e| Unsupported(format!("in the precondition: {}", e.0)))?;
            if block.tail.ty != Ty::Bool {
                return Err(Unsupported("a precondition that is not a boolean".into()));
            }
            consts.extend(gen.consts.iter().copied());
            let mut lines = block.lines;
            lines.push(block.tail.wrapped("", ""));
            Some(lines)
        }
        None => None,
    };

    // The inputs.
    let examples = examples(b);
    let bounds = match &pre {
        Some(pre) => sampling::bounds(pre, &arg_names),
        None => BTreeMap::new(),
    };
    let mut draws = Vec::new();
    let mut fixed = Vec::new();
    for (arg, ty, ctx) in &arg_types {
        let arg_bounds = bounds.get(arg).copied().unwrap_or(Bounds::default());
        let draw = sampling::plan(arg, arg_bounds, *ty == Ty::I64, examples.get(arg))?;
        let line = match draw {
            Draw::Uniform { lo, hi, default } => {
                fixed.push((arg.clone(), Some(lo)));
                let value = uniform_call(lo, hi, *ty);
                let comment = default.map(|d| format!(" // {d}")).unwrap_or_default();
                (value, comment, lo != hi)
            }
            Draw::Example(example) => {
                fixed.push((arg.clone(), sampling::constant(&example, &Vec::new())));
                let mut gen = Gen::new(&mut names);
                let code = gen.expr(&Expr::Cast(Box::new(example)), ctx, false)?;
                consts.extend(gen.consts.iter().copied());
                (
                    code.text,
                    " // the benchmark's :example value".to_string(),
                    false,
                )
            }
        };
        draws.push(line);
    }
    if !draws.is_empty() && draws.iter().all(|(_, _, random)| !random) {
        notes.push(
            "Every argument has a fixed value, so every sample is the same input.".to_string(),
        );
        // With nothing to draw, a precondition the fixed input fails could never be met.
        let env: sampling::Env = fixed
            .iter()
            .map(|(name, value)| (name.clone(), *value))
            .collect();
        if pre.as_ref().and_then(|p| sampling::holds(p, &env)) == Some(false) {
            return Err(Unsupported(
                "the precondition bounds no argument and the :example input does not satisfy it"
                    .into(),
            ));
        }
    }

    let rust_args: Vec<String> = params.iter().map(|(n, _)| n.clone()).collect();
    let pre_free = pre.as_ref().map(Expr::free_vars).unwrap_or_default();
    let program = Program {
        slug,
        name: &name,
        origin,
        b,
        options,
        params: &params,
        result_ty,
        function_lines: &function_lines,
        pre_function: pre_function.as_deref(),
        pre_unused: arg_types
            .iter()
            .map(|(a, _, _)| !pre_free.contains(a))
            .collect(),
        draws: &draws,
        consts: &consts,
        has_unread,
        non_snake_case: names.has_non_snake_case(),
        notes: &notes,
        rust_args: &rust_args,
    };
    Ok(Package {
        slug: slug.to_string(),
        cargo_toml: cargo_toml(slug, &name, origin),
        main_rs: program.render(),
    })
}

/// The precondition to sample inside: `:pre` and `:fpbench-pre-override` together, with notes
/// on how the override was read.
fn precondition(
    b: &Benchmark,
    args: &[String],
) -> Result<(Option<Expr>, Vec<String>), Unsupported> {
    let read = |key: &str| -> Result<Option<Expr>, Unsupported> {
        b.prop(key)
            .map(|value| {
                parse_expr(value).map_err(|e| Unsupported(format!("the :{key} property: {e}")))
            })
            .transpose()
    };
    let mut notes = Vec::new();
    let pre = read("pre")?;
    let mut over = read("fpbench-pre-override")?;
    if let Some(o) = &over {
        let free = o.free_vars();
        let unknown: Vec<&String> = free.iter().filter(|v| !args.contains(v)).collect();
        if unknown.len() == 1 && free.len() == 1 && args.len() == 1 {
            notes.push(format!(
                "The :fpbench-pre-override names `{}`, but the only argument is `{}`: it is read as a bound on `{}`.",
                unknown[0], args[0], args[0]
            ));
            over = Some(o.rename_free(unknown[0], &args[0]));
        } else if !unknown.is_empty() {
            notes.push(
                "The :fpbench-pre-override names variables that are not arguments; it is ignored."
                    .to_string(),
            );
            over = None;
        }
    }
    let combined = match (pre, over) {
        (Some(p), Some(o)) => Some(Expr::Op(Op::And, vec![p, o])),
        (p, o) => p.or(o),
    };
    Ok((combined, notes))
}

/// The `:example` values that are constant expressions, by argument.
fn examples(b: &Benchmark) -> BTreeMap<String, Expr> {
    let mut out = BTreeMap::new();
    for pair in b.prop("example").and_then(|e| e.list()).unwrap_or_default() {
        if let Some([name, value]) = pair.list() {
            if let (Some(name), Ok(value)) = (name.atom(), parse_expr(value)) {
                if value.free_vars().is_empty() {
                    out.insert(name.to_string(), value);
                }
            }
        }
    }
    out
}

/// The expression drawing a value of type `ty` from `[lo, hi]`.
fn uniform_call(lo: f64, hi: f64, ty: Ty) -> String {
    match ty {
        Ty::I64 if lo == hi => format!("{}", lo as i64),
        Ty::I64 => format!("uniform_int(state, {}, {})", lo as i64, hi as i64),
        _ if lo == hi => format!("{lo:?}"),
        Ty::F32 => format!("uniform(state, {lo:?}, {hi:?}) as f32"),
        _ => format!("uniform(state, {lo:?}, {hi:?})"),
    }
}

/// `open items close` on one line when it fits in `width`, else one item per line.
fn list(open: &str, items: &[String], close: &str, width: usize) -> String {
    let line = format!("{open}{}{close}", items.join(", "));
    if line.len() <= width || items.is_empty() {
        return line;
    }
    let mut text = format!("{open}\n");
    for item in items {
        let _ = writeln!(text, "    {item},");
    }
    text.push_str(close);
    text
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn cargo_toml(slug: &str, name: &str, origin: &str) -> String {
    let description = format!("FPBench's \"{name}\" ({origin}) as a standalone Rust program, translated from FPCore by fpcore2rust");
    format!(
        "[package]\nname = \"{slug}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\ndescription = {}\n\n\
         # A workspace of its own, wherever it is written.\n[workspace]\n",
        toml_string(&description)
    )
}

/// Everything `src/main.rs` is made of.
struct Program<'a> {
    slug: &'a str,
    name: &'a str,
    origin: &'a str,
    b: &'a Benchmark,
    options: &'a Options,
    params: &'a [(String, Ty)],
    result_ty: Ty,
    function_lines: &'a [String],
    pre_function: Option<&'a [String]>,
    pre_unused: Vec<bool>,
    /// Per argument: the value expression, a trailing comment, whether it is random.
    draws: &'a [(String, String, bool)],
    consts: &'a BTreeSet<&'static str>,
    has_unread: bool,
    non_snake_case: bool,
    notes: &'a [String],
    rust_args: &'a [String],
}

impl Program<'_> {
    fn render(&self) -> String {
        let mut out = String::new();
        self.header(&mut out);
        self.items(&mut out);
        self.function(&mut out);
        self.main(&mut out);
        if !self.params.is_empty() {
            self.draw(&mut out);
        }
        if let Some(lines) = self.pre_function {
            self.precondition(&mut out, lines);
        }
        self.generators(&mut out);
        out
    }

    fn header(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "//! FPBench's \"{}\" (`{}`), translated from FPCore by fpcore2rust.",
            self.name, self.origin
        );
        out.push_str("//!\n");
        let _ = writeln!(
            out,
            "//! `main` evaluates [`{}`] on [`SAMPLES`] inputs drawn deterministically",
            self.slug
        );
        out.push_str("//! inside the precondition and prints one result per line.\n");
        for note in self.notes {
            let _ = writeln!(out, "//!\n//! {note}");
        }
        out.push_str("//!\n//! The FPCore definition:\n//!\n//! ```text\n");
        for line in self.b.source.lines() {
            let _ = writeln!(out, "//! {}", line.trim_end());
        }
        out.push_str("//! ```\n");
        // `//! ` on an empty line leaves a trailing space.
        *out = out.replace("//! \n", "//!\n");
        if self.non_snake_case {
            out.push_str("\n// The variables keep the benchmark's names (`T`, `Mf`...).\n#![allow(non_snake_case)]\n");
        }
        match self.consts.len() {
            0 => {}
            1 => {
                let _ = writeln!(
                    out,
                    "\nuse std::f64::consts::{};",
                    self.consts.iter().next().copied().unwrap_or_default()
                );
            }
            _ => {
                let all: Vec<&str> = self.consts.iter().copied().collect();
                let _ = writeln!(out, "\nuse std::f64::consts::{{{}}};", all.join(", "));
            }
        }
    }

    fn random(&self) -> bool {
        self.draws.iter().any(|(_, _, random)| *random)
    }

    fn items(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "\n/// How many inputs `main` evaluates the benchmark on.\nconst SAMPLES: usize = {};",
            self.options.samples
        );
        if self.pre_function.is_some() && self.random() {
            let _ = writeln!(
                out,
                "\n/// How many draws one input may take to satisfy the precondition.\nconst MAX_TRIES: usize = {};",
                group_digits(MAX_TRIES)
            );
        }
        if self.random() {
            out.push_str("\n/// The generator's first state: every run draws the same inputs.\nconst SEED: u64 = 0x853c_49e6_748f_ea9b;\n");
        }
    }

    fn function(&self, out: &mut String) {
        let _ = writeln!(out, "\n/// FPBench's \"{}\".", self.name);
        if let Some(crate::sexp::Sexp::Str { text, .. }) = self.b.prop("description") {
            out.push_str("///\n");
            for line in text.lines() {
                let _ = writeln!(out, "/// {}", line.trim());
            }
            *out = out.replace("/// \n", "///\n");
        }
        if self.has_unread {
            out.push_str("// FPCore computes values this function does not read; they are kept as written.\n");
            out.push_str("#[allow(unused_variables, unused_assignments)]\n");
        }
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(n, t)| format!("{n}: {}", t.rust()))
            .collect();
        let ret = format!(") -> {} {{", self.result_ty.rust());
        out.push_str(&list(
            &format!("fn {}(", self.slug),
            &params,
            &ret,
            LINE_WIDTH,
        ));
        out.push('\n');
        for line in self.function_lines {
            out.push_str(&indent(line));
            out.push('\n');
        }
        out.push_str("}\n");
    }

    fn main(&self, out: &mut String) {
        out.push_str("\nfn main() {\n");
        let call = list(
            &format!("{}(", self.slug),
            self.rust_args,
            ")",
            LINE_WIDTH - 23,
        );
        if self.params.is_empty() {
            out.push_str("    for _ in 0..SAMPLES {\n");
        } else {
            let draw = if self.random() {
                out.push_str("    let mut state = SEED;\n");
                "draw(&mut state)"
            } else {
                "draw()"
            };
            out.push_str("    for _ in 0..SAMPLES {\n");
            let pattern = if self.rust_args.len() == 1 {
                self.rust_args[0].clone()
            } else {
                list("(", self.rust_args, ")", LINE_WIDTH - 36)
            };
            out.push_str(&indent(&indent(&format!("let {pattern} = {draw};"))));
            out.push('\n');
        }
        out.push_str(&indent(&indent(&format!("println!(\"{{}}\", {call});"))));
        out.push_str("\n    }\n}\n");
    }

    fn draw(&self, out: &mut String) {
        let tys: Vec<String> = self
            .params
            .iter()
            .map(|(_, t)| t.rust().to_string())
            .collect();
        let ret = if tys.len() == 1 {
            tys[0].clone()
        } else {
            list("(", &tys, ")", LINE_WIDTH - 30)
        };
        let tuple = if self.rust_args.len() == 1 {
            self.rust_args[0].clone()
        } else {
            list("(", self.rust_args, ")", LINE_WIDTH - 16)
        };
        let state = if self.random() { "state: &mut u64" } else { "" };
        out.push_str(match (self.random(), self.pre_function.is_some()) {
            (true, true) => "\n/// One input, drawn from the ranges below until it satisfies the precondition.\n",
            (true, false) => "\n/// One input, drawn from the ranges below.\n",
            (false, _) => "\n/// The input: every argument has a fixed value.\n",
        });
        let _ = writeln!(out, "fn draw({state}) -> {ret} {{");
        let mut body = Vec::new();
        for ((name, ty), (value, comment, _)) in self.params.iter().zip(self.draws) {
            body.push(format!("let {name}: {} = {value};{comment}", ty.rust()));
        }
        let check = list("precondition(", self.rust_args, ")", LINE_WIDTH - 20);
        match (self.pre_function.is_some(), self.random()) {
            (true, true) => {
                out.push_str("    for _ in 0..MAX_TRIES {\n");
                for line in &body {
                    out.push_str(&indent(&indent(line)));
                    out.push('\n');
                }
                let _ = writeln!(out, "{}", indent(&indent(&format!("if {check} {{"))));
                let _ = writeln!(
                    out,
                    "{}",
                    indent(&indent(&indent(&format!("return {tuple};"))))
                );
                out.push_str("        }\n    }\n");
                out.push_str("    panic!(\"no input satisfies the precondition in {MAX_TRIES} draws\");\n}\n");
            }
            (has_pre, _) => {
                for line in &body {
                    out.push_str(&indent(line));
                    out.push('\n');
                }
                if has_pre {
                    let _ = writeln!(
                        out,
                        "{}",
                        indent(&format!("assert!({check}, \"the example input does not satisfy the precondition\");"))
                    );
                }
                let _ = writeln!(out, "{}\n}}", indent(&tuple));
            }
        }
    }

    fn precondition(&self, out: &mut String, lines: &[String]) {
        let params: Vec<String> = self
            .params
            .iter()
            .zip(&self.pre_unused)
            .map(|((n, t), unused)| format!("{}{n}: {}", if *unused { "_" } else { "" }, t.rust()))
            .collect();
        out.push_str("\n/// The benchmark's precondition, in binary64.\n");
        out.push_str(&list(
            "fn precondition(",
            &params,
            ") -> bool {",
            LINE_WIDTH,
        ));
        out.push('\n');
        for line in lines {
            out.push_str(&indent(line));
            out.push('\n');
        }
        out.push_str("}\n");
    }

    fn generators(&self, out: &mut String) {
        let uses = |f: &str| self.draws.iter().any(|(value, _, _)| value.starts_with(f));
        let step = "    *state = state\n        .wrapping_mul(6_364_136_223_846_793_005)\n        .wrapping_add(1_442_695_040_888_963_407);\n";
        if uses("uniform(") {
            out.push_str("\n/// A number drawn uniformly from `[lo, hi]`: one step of a 64-bit linear congruential\n");
            out.push_str(
                "/// generator (Knuth's MMIX constants), whose top 53 bits make the fraction.\n",
            );
            out.push_str("fn uniform(state: &mut u64, lo: f64, hi: f64) -> f64 {\n");
            out.push_str(step);
            out.push_str("    let unit = (*state >> 11) as f64 / (1_u64 << 53) as f64;\n    lo + (hi - lo) * unit\n}\n");
        }
        if uses("uniform_int(") {
            out.push_str("\n/// An integer drawn uniformly from `lo..=hi`, with the generator of `uniform`.\n");
            out.push_str("fn uniform_int(state: &mut u64, lo: i64, hi: i64) -> i64 {\n");
            out.push_str(step);
            out.push_str(
                "    let span = hi.abs_diff(lo) + 1;\n    lo + ((*state >> 32) % span) as i64\n}\n",
            );
        }
    }
}

/// `n` with `_` between groups of three digits.
fn group_digits(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('_');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_file;

    fn translate(fpcore: &str) -> Result<Package, Unsupported> {
        let b = parse_file(fpcore)
            .expect("readable")
            .remove(0)
            .expect("well formed");
        package(&b, "bench", "test.fpcore", &Options::default())
    }

    fn main_rs(fpcore: &str) -> String {
        translate(fpcore).expect("translated").main_rs
    }

    #[test]
    fn the_manifest_has_no_dependencies_and_its_own_workspace() {
        let p = translate("(FPCore (x) :name \"a \\\"quoted\\\" name\" x)").expect("translated");
        assert!(
            p.cargo_toml.starts_with("[package]\nname = \"bench\"\n"),
            "{}",
            p.cargo_toml
        );
        assert!(p.cargo_toml.contains("edition = \"2021\""));
        assert!(p.cargo_toml.contains("\\\"quoted\\\""), "{}", p.cargo_toml);
        assert!(p.cargo_toml.ends_with("[workspace]\n"));
        assert!(!p.cargo_toml.contains("dependencies"));
    }

    #[test]
    fn the_program_has_the_function_a_draw_inside_the_precondition_and_a_printing_main() {
        let rs =
            main_rs("(FPCore (x eps) :name \"demo\" :pre (and (<= 0 x 1) (!= eps 0)) (+ x eps))");
        assert!(rs.contains("const SAMPLES: usize = 8;"), "{rs}");
        assert!(
            rs.contains("fn bench(x: f64, eps: f64) -> f64 {\n    x + eps\n}"),
            "{rs}"
        );
        assert!(
            rs.contains("let x: f64 = uniform(state, 0.0, 1.0);"),
            "{rs}"
        );
        assert!(
            rs.contains("let eps: f64 = uniform(state, -10.0, 10.0); // unbounded"),
            "{rs}"
        );
        assert!(rs.contains("fn precondition(x: f64, eps: f64) -> bool {\n    0.0 <= x && x <= 1.0 && eps != 0.0\n}"), "{rs}");
        assert!(
            rs.contains(
                "let (x, eps) = draw(&mut state);\n        println!(\"{}\", bench(x, eps));"
            ),
            "{rs}"
        );
        assert!(
            rs.contains("fn uniform(state: &mut u64, lo: f64, hi: f64) -> f64"),
            "{rs}"
        );
        assert!(!rs.contains("uniform_int"), "{rs}");
    }

    #[test]
    fn binary32_benchmarks_compute_and_draw_in_f32() {
        let rs = main_rs("(FPCore (x) :precision binary32 :pre (<= 1 x 2) (sqrt x))");
        assert!(
            rs.contains("fn bench(x: f32) -> f32 {\n    x.sqrt()\n}"),
            "{rs}"
        );
        assert!(
            rs.contains("let x: f32 = uniform(state, 1.0, 2.0) as f32;"),
            "{rs}"
        );
        assert!(
            rs.contains(
                "fn precondition(x: f32) -> bool {\n    1.0 <= (x as f64) && (x as f64) <= 2.0\n}"
            ),
            "{rs}"
        );
    }

    #[test]
    fn integer_arguments_are_drawn_as_integers_and_the_override_is_read_for_a_lone_argument() {
        let rs = main_rs("(FPCore ((! :precision integer n)) :pre (>= n 0) :fpbench-pre-override (<= 10 x 200) (* n 2))");
        assert!(
            rs.contains("let n: i64 = uniform_int(state, 10, 200);"),
            "{rs}"
        );
        assert!(
            rs.contains("names `x`, but the only argument is `n`"),
            "{rs}"
        );
        assert!(rs.contains("n >= 0 && 10 <= n && n <= 200"), "{rs}");
        assert!(
            rs.contains("fn bench(n: i64) -> f64 {\n    (n as f64) * 2.0\n}"),
            "{rs}"
        );
    }

    #[test]
    fn unbounded_arguments_take_the_example_value() {
        let rs = main_rs("(FPCore (a b) :pre (< 0 a 1) :example ([a 0.5] [b (/ 1 3)]) (+ a b))");
        assert!(
            rs.contains("let a: f64 = uniform(state, 0.0, 1.0);"),
            "{rs}"
        );
        assert!(
            rs.contains("let b: f64 = 1.0 / 3.0; // the benchmark's :example value"),
            "{rs}"
        );
    }

    #[test]
    fn constants_are_imported_and_unused_precondition_arguments_are_marked() {
        let rs = main_rs("(FPCore (x y) :pre (< 0 x PI) (* y E))");
        assert!(rs.contains("use std::f64::consts::{E, PI};"), "{rs}");
        assert!(
            rs.contains("fn precondition(x: f64, _y: f64) -> bool"),
            "{rs}"
        );
    }

    #[test]
    fn unsupported_benchmarks_say_why() {
        assert!(translate("(FPCore (x) (erf x))")
            .expect_err("skipped")
            .0
            .contains("erf"));
        assert!(translate("(FPCore ((v 3)) v)")
            .expect_err("skipped")
            .0
            .contains("tensor"));
        assert!(translate("(FPCore (x) (< x 1))")
            .expect_err("skipped")
            .0
            .contains("boolean"));
        assert!(translate("(FPCore (x) :pre (< 2 x 1) x)")
            .expect_err("skipped")
            .0
            .contains("no value"));
        assert!(translate("(FPCore (x) :pre (< y 1) x)")
            .expect_err("skipped")
            .0
            .contains("precondition"));
        let err =
            translate("(FPCore (x) :pre (> (* x x) 4) :example ([x 1]) x)").expect_err("skipped");
        assert!(err.0.contains(":example input does not satisfy"), "{err}");
    }

    #[test]
    fn long_argument_lists_are_written_one_per_line() {
        let args: Vec<String> = (0..20).map(|i| format!("long_argument_{i}")).collect();
        let fpcore = format!("(FPCore ({}) long_argument_0)", args.join(" "));
        let rs = main_rs(&fpcore);
        assert!(
            rs.contains("fn bench(\n    long_argument_0: f64,\n"),
            "{rs}"
        );
        assert!(
            rs.lines().all(|l| l.len() <= 110 || l.starts_with("//!")),
            "{rs}"
        );
    }
}
