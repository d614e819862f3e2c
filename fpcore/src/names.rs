//! Names in the generated Rust: package slugs from benchmark names, and Rust identifiers from
//! FPCore symbols (`sl*` -> `sl_star`), each unique where it must be.

use std::collections::{BTreeMap, BTreeSet};

/// Rust's keywords, strict and reserved, which no identifier may be.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Names cargo refuses for a package, or that would shadow what a program relies on.
const RESERVED_PACKAGES: &[&str] = &[
    "test",
    "std",
    "core",
    "alloc",
    "proc_macro",
    "build",
    "deps",
    "examples",
    "incremental",
    "main",
    "con",
    "prn",
    "aux",
    "nul",
    "com1",
    "com2",
    "com3",
    "com4",
    "lpt1",
    "lpt2",
    "lpt3",
];

/// The slug of a benchmark name: lowercase ASCII letters, digits and single underscores,
/// starting with a letter; usable as a package name, a directory name and a function name.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if c == '\'' {
            // "Rump's" reads better as "rumps" than "rump_s".
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let mut out = out.trim_matches('_').to_string();
    if out.is_empty() {
        out = "benchmark".to_string();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out = format!("fpcore_{out}");
    }
    if KEYWORDS.contains(&out.as_str()) || RESERVED_PACKAGES.contains(&out.as_str()) {
        out.push_str("_fpcore");
    }
    out
}

/// Slugs handed out so far, so that each benchmark gets its own.
#[derive(Debug, Default)]
pub struct Slugs {
    taken: BTreeSet<String>,
}

impl Slugs {
    /// The slug of `name`, suffixed `_2`, `_3`... when an earlier benchmark has it.
    pub fn claim(&mut self, name: &str) -> String {
        let base = slug(name);
        let mut candidate = base.clone();
        let mut n = 1;
        while self.taken.contains(&candidate) {
            n += 1;
            candidate = format!("{base}_{n}");
        }
        self.taken.insert(candidate.clone());
        candidate
    }
}

/// A Rust identifier for an FPCore symbol: `*` becomes `_star`, other punctuation `_`, and a
/// keyword gets a trailing `_`.
pub fn identifier(symbol: &str) -> String {
    let mut out = String::new();
    for c in symbol.chars() {
        match c {
            c if c.is_ascii_alphanumeric() || c == '_' => out.push(c),
            '*' => out.push_str("_star"),
            '?' => out.push_str("_p"),
            _ => out.push('_'),
        }
    }
    if out.is_empty() || out.chars().all(|c| c == '_') {
        out = format!("v{out}");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'v');
    }
    if KEYWORDS.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// The identifiers of one generated program: each FPCore symbol keeps one Rust name, distinct
/// from every other symbol's and from the program's own items.
#[derive(Debug, Default)]
pub struct Names {
    of_symbol: BTreeMap<String, String>,
    used: BTreeSet<String>,
}

impl Names {
    /// A namespace in which `reserved` (the program's own items) are taken.
    pub fn new(reserved: &[&str]) -> Names {
        Names {
            of_symbol: BTreeMap::new(),
            used: reserved.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// The Rust identifier of FPCore symbol `symbol`, the same on every call.
    pub fn ident(&mut self, symbol: &str) -> String {
        if let Some(name) = self.of_symbol.get(symbol) {
            return name.clone();
        }
        let name = self.fresh(&identifier(symbol));
        self.of_symbol.insert(symbol.to_string(), name.clone());
        name
    }

    /// A new identifier based on `base`, used by nothing else.
    pub fn fresh(&mut self, base: &str) -> String {
        let mut candidate = base.to_string();
        let mut n = 1;
        while self.used.contains(&candidate) || KEYWORDS.contains(&candidate.as_str()) {
            n += 1;
            candidate = format!("{base}_{n}");
        }
        self.used.insert(candidate.clone());
        candidate
    }

    /// An identifier based on `base` for a temporary: distinct from every symbol's and reserved
    /// name, but not claimed, so temporaries in separate scopes may share it.
    pub fn temporary(&self, base: &str) -> String {
        let mut candidate = base.to_string();
        let mut n = 1;
        while self.used.contains(&candidate) || KEYWORDS.contains(&candidate.as_str()) {
            n += 1;
            candidate = format!("{base}_{n}");
        }
        candidate
    }

    /// Whether any identifier handed out is not snake case (`T`, `Mf`), which rustc warns about.
    pub fn has_non_snake_case(&self) -> bool {
        self.of_symbol
            .values()
            .any(|n| n.chars().any(|c| c.is_ascii_uppercase()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_lowercase_words_joined_by_underscores() {
        assert_eq!(slug("NMSE example 3.1"), "nmse_example_3_1");
        assert_eq!(slug("Rump's example, with pow"), "rumps_example_with_pow");
        assert_eq!(slug("test05_nonlin1, r4"), "test05_nonlin1_r4");
        assert_eq!(slug("  --  "), "benchmark");
        assert_eq!(slug("3.14 things"), "fpcore_3_14_things");
        assert_eq!(slug("while"), "while_fpcore");
        assert_eq!(slug("test"), "test_fpcore");
    }

    #[test]
    fn a_repeated_name_gets_a_numbered_slug() {
        let mut slugs = Slugs::default();
        assert_eq!(slugs.claim("logexp"), "logexp");
        assert_eq!(slugs.claim("logexp"), "logexp_2");
        assert_eq!(slugs.claim("LogExp"), "logexp_3");
    }

    #[test]
    fn fpcore_symbols_become_rust_identifiers() {
        assert_eq!(identifier("sl*"), "sl_star");
        assert_eq!(identifier("y_n*"), "y_n_star");
        assert_eq!(identifier("T"), "T");
        assert_eq!(identifier("a-b"), "a_b");
        assert_eq!(identifier("type"), "type_");
        assert_eq!(identifier("*"), "_star");
        assert_eq!(identifier("-"), "v_");
    }

    #[test]
    fn distinct_symbols_keep_distinct_identifiers_and_reserved_names_are_avoided() {
        let mut names = Names::new(&["draw", "state"]);
        assert_eq!(names.ident("t*"), "t_star");
        assert_eq!(names.ident("t_star"), "t_star_2");
        assert_eq!(names.ident("t*"), "t_star");
        assert_eq!(names.ident("state"), "state_2");
        assert_eq!(names.fresh("x_next"), "x_next");
        assert_eq!(names.fresh("x_next"), "x_next_2");
        assert_eq!(names.temporary("y_next"), "y_next");
        assert_eq!(names.temporary("y_next"), "y_next");
        assert_eq!(names.temporary("t_star"), "t_star_3");
        assert!(!names.has_non_snake_case());
        names.ident("T");
        assert!(names.has_non_snake_case());
    }
}
