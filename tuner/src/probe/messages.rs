//! Reading the types in rustc's messages: the float slots of a type, the `expected`/`found` pairs.

/// A float position in a type as rustc prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Slot {
    /// `Probe<F, K>` (any path, `F` possibly `_`): the knob ids its tag names, in order
    /// (`Id<3>`: knob 3; `(Id<3>, (Id<5>, Id<3>))`: a value computed from knobs 3 and 5).
    Probe(Vec<usize>),
    /// A plain float type: `f64`, `f32`, `f16`, `bf16` (any path).
    Plain(String),
    /// `{float}`: a float literal not yet given a type.
    Literal,
    /// `_`: a part rustc elided because it is the same on both sides.
    Hole,
}

/// The float positions of a type text, in order.
pub(super) fn slots(ty: &str) -> Vec<Slot> {
    if ty.trim() == "floating-point number" {
        return vec![Slot::Literal];
    }
    let chars: Vec<char> = ty.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '{' {
            let end = chars[i..].iter().position(|&c| c == '}').map_or(chars.len(), |p| i + p + 1);
            let inner: String = chars[i..end].iter().collect();
            if inner == "{float}" {
                out.push(Slot::Literal);
            }
            i = end;
        } else if c.is_alphanumeric() || c == '_' {
            // A path: segments joined by `::`.
            let start = i;
            loop {
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                if i + 2 < chars.len() && chars[i] == ':' && chars[i + 1] == ':' && is_ident_start(chars[i + 2]) {
                    i += 2;
                } else {
                    break;
                }
            }
            let path: String = chars[start..i].iter().collect();
            let last = path.rsplit("::").next().unwrap_or(&path);
            if last == "Probe" && chars.get(i) == Some(&'<') {
                let (args, end) = generic_args(&chars, i);
                i = end;
                let ids = args.last().map(|a| tag_ids(a)).unwrap_or_default();
                if !ids.is_empty() {
                    out.push(Slot::Probe(ids));
                }
            } else if matches!(last, "f64" | "f32" | "f16" | "bf16") {
                out.push(Slot::Plain(last.to_string()));
            } else if path == "_" {
                out.push(Slot::Hole);
            }
        } else {
            i += 1;
        }
    }
    out
}

pub(super) fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

/// The top-level arguments of the `<..>` opening at `open`, and the index after its `>`.
pub(super) fn generic_args(chars: &[char], open: usize) -> (Vec<String>, usize) {
    let mut depth = 0usize;
    let mut args = Vec::new();
    let mut current = String::new();
    let mut i = open;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '<' | '(' | '[' | '{' => {
                if depth > 0 {
                    current.push(c);
                }
                depth += 1;
            }
            '>' | ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    args.push(current.trim().to_string());
                    return (args, i + 1);
                }
                current.push(c);
            }
            ',' if depth == 1 => args.push(std::mem::take(&mut current).trim().to_string()),
            _ => current.push(c),
        }
        i += 1;
    }
    (args, chars.len())
}

/// The knob ids a probe's tag names: every `Id<N>` in it, in order without repeats, or the tag
/// itself read as a number (the probe type before tags: `Probe<f64, 7>`).
pub(super) fn tag_ids(tag: &str) -> Vec<usize> {
    let mut ids = Vec::new();
    let mut rest = tag;
    while let Some(at) = rest.find("Id<") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + 3..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let end = rest.find('>').unwrap_or(rest.len());
        if let Some(id) = const_id(&rest[..end]) {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    if ids.is_empty() {
        ids.extend(const_id(tag));
    }
    ids
}

/// A const generic argument as rustc prints it: `7`, `7_u32`, `{7}`.
pub(super) fn const_id(arg: &str) -> Option<usize> {
    let a = arg.trim().trim_start_matches('{').trim_end_matches('}');
    let digits = a.strip_suffix("_u32").or_else(|| a.strip_suffix("u32")).unwrap_or(a);
    digits.parse().ok()
}

/// Every `expected X, found Y` of a rendered diagnostic: labels ("expected `&[f64]`, found
/// `&Vec<Probe<f64, 2>>`") and notes ("expected reference `..`" over "found reference `..`"),
/// `floating-point number` as `{float}`.
pub(crate) fn expected_found(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = text[from..].find("expected ") {
        let at = from + p;
        from = at + "expected ".len();
        if text[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some((expected, after)) = operand(&text[from..]) else { continue };
        let rest = &text[from + after..];
        let Some(skip) = found_separator(rest) else { continue };
        let Some((found, _)) = operand(&rest[skip..]) else { continue };
        // A closure where a `fn` pointer is expected: rustc gives its signature in a note.
        let found = match (found.starts_with("{closure@"), closure_signature(text)) {
            (true, Some(sig)) => sig,
            _ => found,
        };
        out.push((expected, found));
    }
    out
}

/// The signature of the closure an error names ("closure has signature: `fn(Probe<f64, 7>) ->
/// Probe<f64, 7>`").
fn closure_signature(text: &str) -> Option<String> {
    let rest = text.split("closure has signature: `").nth(1)?;
    rest.split('`').next().map(str::to_string)
}

/// A type after "expected "/"found ": optional kind words ("struct", "mutable reference"), then a
/// backquoted type, or "floating-point number". Returns the type and the length read.
pub(super) fn operand(s: &str) -> Option<(String, usize)> {
    const LITERAL: &str = "floating-point number";
    if s.starts_with(LITERAL) {
        return Some(("{float}".into(), LITERAL.len()));
    }
    let tick = s.find('`')?;
    let kind = &s[..tick];
    let words_ok = kind.is_empty()
        || (kind.ends_with(' ')
            && kind.split_whitespace().count() <= 4
            && kind.chars().all(|c| c.is_ascii_lowercase() || c == ' ' || c == '-'));
    if !words_ok {
        return None;
    }
    let close = s[tick + 1..].find('`')?;
    let ty = &s[tick + 1..tick + 1 + close];
    if ty.contains('\n') {
        return None;
    }
    Some((ty.to_string(), tick + 1 + close + 1))
}

/// The bytes between an expected type and "found ": `, ` on a label, a line break and indent in a
/// note.
pub(super) fn found_separator(rest: &str) -> Option<usize> {
    if let Some(r) = rest.strip_prefix(", found ") {
        return Some(rest.len() - r.len());
    }
    let trimmed = rest.trim_start_matches([' ', '\t']);
    let trimmed = trimmed.strip_prefix("\r\n").or_else(|| trimmed.strip_prefix('\n'))?;
    let trimmed = trimmed.trim_start_matches([' ', '\t']);
    let r = trimmed.strip_prefix("found ")?;
    Some(rest.len() - r.len())
}

/// `text` without ANSI colour sequences (`ESC [ ... letter`), as in a build run with colours.
pub(crate) fn strip_ansi(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Words of a headline naming an operator between two types ("cannot add `A` to `B`",
/// "can't compare `A` with `B`") or a collection, sum or product of an iterator's items (a value
/// of type `Vec<f64>` "cannot be built from an iterator over elements of type `B`"), or the
/// conversion's own operator dispatch (the method `__fp_add` of a pair of operands whose bounds
/// do not hold): a knob meeting a plain float there cannot change type.
pub(super) fn operator_headline(message: &str) -> bool {
    [
        "cannot add",
        "cannot subtract",
        "cannot multiply",
        "cannot divide",
        "cannot calculate the remainder",
        "can't compare",
        "no implementation for `",
        "cannot be built from an iterator",
        "cannot be made by summing",
        "cannot be made by multiplying",
        "the method `__fp_",
    ]
        .iter()
        .any(|w| message.contains(w))
}

/// Backquoted spans of a headline.
pub(super) fn quoted(message: &str) -> Vec<&str> {
    message.split('`').skip(1).step_by(2).collect()
}

/// What a trial's error says a unit meets, in the user's words: the type on the other side of
/// an `expected`/`found` pair that is no probe; else the operator an fptune dispatch method stands
/// for (`__fp_add` is `+`); else the first type or name the headline quotes; else the headline.
/// fptune's own paths (`fptune::__rt::`) are left out, as the user never wrote them.
pub(super) fn meets_in_user_words(message: &str, rendered: &str) -> String {
    let tidy = |s: &str| s.replace("fptune::__rt::", "");
    let other = expected_found(&strip_ansi(rendered)).into_iter().flat_map(|(e, f)| [e, f]).find(|t| !t.contains("Probe<") && !t.contains("Knob<"));
    if let Some(t) = other {
        return tidy(&t);
    }
    match quoted(message).first() {
        Some(q) => match q.strip_prefix("__fp_") {
            Some(op) => operator_symbol(op).map_or_else(|| op.to_string(), |s| format!("the operator {s}")),
            None => tidy(q),
        },
        None => message.to_string(),
    }
}

/// The operator an fptune dispatch method (`__fp_add`, `__fp_compound`) stands for.
fn operator_symbol(method: &str) -> Option<&'static str> {
    Some(match method {
        "add" => "+",
        "sub" => "-",
        "mul" => "*",
        "div" => "/",
        "rem" => "%",
        "eq" => "==",
        "ne" => "!=",
        "lt" => "<",
        "le" => "<=",
        "gt" => ">",
        "ge" => ">=",
        "compound" => "op= (a compound assignment)",
        "store_into" => "= (an assignment)",
        _ => return None,
    })
}

/// std's float constants (`std::f64::consts::*`): a name a line may use bare, imported.
const STD_CONSTS: [&str; 18] = [
    "PI", "TAU", "E", "SQRT_2", "LN_2", "LN_10", "LOG2_E", "LOG10_E", "LOG2_10", "LOG10_2", "FRAC_PI_2", "FRAC_PI_3",
    "FRAC_PI_4", "FRAC_PI_6", "FRAC_PI_8", "FRAC_1_PI", "FRAC_2_PI", "FRAC_1_SQRT_2",
];

/// What on a line of the user's code fixes a float type where a knob meets it, in their words:
/// std's constants (`PI`, `f64::EPSILON`), casts (`as f64`), suffixed literals (`2.0f64`). For
/// the report's "which no declaration holds": the user sees what to rewrite.
pub(crate) fn fixed_floats_on(line: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |s: String| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    for (at, w) in words(line) {
        let before = line[..at].trim_end();
        if (w == "f64" || w == "f32") && before.ends_with(" as") {
            add(format!("the cast `as {w}`"));
        } else if STD_CONSTS.contains(&w) {
            add(format!("`{w}` (std's `f64` constant; `std::f32::consts::{w}` is `f32`'s)"));
        } else if (before.ends_with("f64::") || before.ends_with("f32::")) && w.starts_with(|c: char| c.is_ascii_uppercase()) {
            add(format!("`{}{w}`", &before[before.len() - 5..]));
        } else if w.starts_with(|c: char| c.is_ascii_digit()) && (w.ends_with("f64") || w.ends_with("f32")) {
            add(format!("the suffixed literal `{w}`"));
        }
    }
    out
}

/// The words of a line with their offsets: runs of letters, digits, `_` and `.`, a number's
/// exponent sign included (`1e-3f64`).
fn words(line: &str) -> Vec<(usize, &str)> {
    let bytes = line.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !word(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() {
            let exponent_sign = matches!(bytes[i], b'-' | b'+')
                && i > start
                && matches!(bytes[i - 1], b'e' | b'E')
                && bytes[start].is_ascii_digit();
            if word(bytes[i]) || exponent_sign {
                i += 1;
            } else {
                break;
            }
        }
        out.push((start, &line[start..i]));
    }
    out
}
