//! Reading the types of rustc's messages for a heal: float-shaped pairs, slices, the stochastic wrapper.





/// Whether two types differ only in their kind of float (`Stochastic<f64>` against `f64` or
/// `{float}`); behind references, a slice against an array or a `Vec` of the same elements
/// (which a reference coerces).
pub(super) fn float_shaped(expected: &str, found: &str) -> bool {
    if expected == found {
        return false;
    }
    let (x, y) = (normalize(expected), normalize(found));
    x == y || (x.starts_with('&') && y.starts_with('&') && sliced(&x) == sliced(&y)) || (split_words(&x).iter().any(|w| w == "F") && same_shape(&x, &y))
}

/// Whether two normalized types have one shape, where rustc left a part out on either side
/// (`_` for what it did not infer, `...` for what it shortened: `ArrayBase<OwnedRepr<F>, _>`
/// and `ArrayBase<OwnedRepr<F>, Dim<[usize; 2]>>`).
fn same_shape(x: &str, y: &str) -> bool {
    let hole = |t: &str| t == "_" || t == "..";
    if x == y || hole(x) || hole(y) {
        return true;
    }
    match (split_generic(x), split_generic(y)) {
        (Some((hx, ax)), Some((hy, ay))) => hx == hy && ax.len() == ay.len() && ax.iter().zip(&ay).all(|(a, b)| same_shape(a, b)),
        _ => false,
    }
}

/// `Name<A, B>` as `("Name", ["A", "B"])` (top-level arguments; `...` read as one argument).
fn split_generic(t: &str) -> Option<(&str, Vec<&str>)> {
    let open = t.find('<')?;
    let inner = t.get(open + 1..t.len().checked_sub(1)?)?;
    if !t.ends_with('>') {
        return None;
    }
    let mut args = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '<' | '[' | '(' => depth += 1,
            '>' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                args.push(inner[start..i].trim().trim_matches('.'));
                start = i + 1;
            }
            _ => {}
        }
    }
    args.push(inner[start..].trim());
    let args = args.into_iter().map(|a| if a.is_empty() || a.chars().all(|c| c == '.') { ".." } else { a }).collect();
    Some((&t[..open], args))
}

/// `[E]` or `[E; N]`: the element, and the length where there is one.
pub(super) fn bracketed(t: &str) -> Option<(&str, Option<&str>)> {
    let inner = t.strip_prefix('[')?.strip_suffix(']')?;
    let mut depth = 0i32;
    for (i, c) in inner.char_indices() {
        match c {
            '<' | '[' | '(' => depth += 1,
            '>' | ']' | ')' => depth -= 1,
            ';' if depth == 0 => return Some((inner[..i].trim(), Some(inner[i + 1..].trim()))),
            _ => {}
        }
    }
    Some((inner.trim(), None))
}

/// The element of a shared slice type `&[E]`.
pub(super) fn slice_element(ty: &str) -> Option<&str> {
    match bracketed(ty.strip_prefix('&')?.trim())? {
        (elem, None) => Some(elem),
        _ => None,
    }
}

/// The type a referent of type `found` (behind `&`) is stored into where `expected` is lent: the
/// expected referent, with the found one's array length or `Vec` where a slice is expected.
pub(super) fn lent_as(expected: &str, found: &str) -> Option<String> {
    let x = expected.strip_prefix('&')?.trim();
    let y = found.strip_prefix('&')?.trim();
    match bracketed(x) {
        Some((elem, None)) => match bracketed(y) {
            Some((_, Some(n))) => Some(format!("[{elem}; {n}]")),
            _ => y.starts_with("Vec<").then(|| format!("Vec<{elem}>")),
        },
        _ => Some(x.to_string()),
    }
}

/// A normalized reference type with `[T; N]` and `Vec<T>` written `[T]`.
pub(super) fn sliced(ty: &str) -> String {
    let t = ty.trim_start_matches("&mut").trim_start_matches('&');
    let inner = if let Some(rest) = t.strip_prefix("Vec<").and_then(|r| r.strip_suffix('>')) {
        rest.to_string()
    } else if let Some(rest) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        rest.rsplit_once(';').map_or(rest, |(e, _)| e).to_string()
    } else {
        return ty.to_string();
    };
    format!("&[{inner}]")
}

/// A type with every float kind written as `F`.
pub(super) fn normalize(ty: &str) -> String {
    let mut t = ty.replace(' ', "");
    for (from, to) in [("Stochastic<f64>", "F"), ("Stochastic<f32>", "F"), ("Stochastic<f16>", "F"), ("Stochastic<bf16>", "F"), ("{float}", "F")] {
        t = t.replace(from, to);
    }
    // The single build's values of run-time format: `DynStochastic`, `DynNative`, `Knob<F, U, ..>`.
    t = replace_generic(&t, "Knob<", "F");
    for (from, to) in [("fptune::__rt::DynStochastic", "F"), ("fptune::__rt::DynNative", "F"), ("DynStochastic", "F"), ("DynNative", "F")] {
        t = t.replace(from, to);
    }
    let mut out = String::new();
    for w in split_words(&t) {
        out.push_str(match w.as_str() {
            "f64" | "f32" | "f16" | "bf16" => "F",
            other => other,
        });
    }
    out
}

/// `t` with every `Name<..>` (brackets balanced) written `to`.
pub(super) fn replace_generic(t: &str, name: &str, to: &str) -> String {
    let mut out = String::new();
    let mut rest = t;
    while let Some(p) = rest.find(name) {
        let before = &rest[..p];
        // Any path before the name (`fptune::__rt::`) goes with it.
        let keep = before.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_' || c == ':');
        out.push_str(keep);
        let mut depth = 0;
        let mut end = rest.len();
        for (i, c) in rest[p + name.len() - 1..].char_indices() {
            match c {
                '<' => depth += 1,
                '>' => {
                    depth -= 1;
                    if depth == 0 {
                        end = p + name.len() - 1 + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push_str(to);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A float type as rustc prints it (`Stochastic<f64>`, `Vec<fptune::__rt::DynStochastic>`), written so
/// that it names the same type anywhere: fptune's types by their full paths. `None` for a type
/// that names anything else.
pub(super) fn qualified(ty: &str) -> Option<String> {
    struct Qualify(bool);
    impl syn::visit_mut::VisitMut for Qualify {
        fn visit_path_mut(&mut self, p: &mut syn::Path) {
            let names: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
            let full = match names.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
                // A primitive written so that the stochastic build does not map it.
                ["f64"] => Some("::fptune::__rt::primitive::f64"),
                ["f32"] => Some("::fptune::__rt::primitive::f32"),
                ["Vec" | "Option" | "usize"] => None,
                ["Stochastic"] => Some("::fptune::Stochastic"),
                ["DynStochastic"] | ["fptune", "__rt", "DynStochastic"] => Some("::fptune::__rt::DynStochastic"),
                ["DynNative"] | ["fptune", "__rt", "DynNative"] => Some("::fptune::__rt::DynNative"),
                ["Knob"] | ["fptune", "__rt", "Knob"] => Some("::fptune::__rt::Knob"),
                ["f16"] | ["fptune", "f16"] | ["half", "f16"] => Some("::fptune::f16"),
                ["bf16"] | ["fptune", "bf16"] | ["half", "bf16"] => Some("::fptune::bf16"),
                ["fptune", "__rt", "CONSTANT"] | ["CONSTANT"] => Some("::fptune::__rt::CONSTANT"),
                _ => {
                    self.0 = false;
                    None
                }
            };
            if let Some(full) = full {
                let args = p.segments.last().map(|s| s.arguments.clone());
                if let Ok(mut q) = syn::parse_str::<syn::Path>(full) {
                    if let (Some(last), Some(args)) = (q.segments.last_mut(), args) {
                        last.arguments = args;
                    }
                    *p = q;
                }
            }
            syn::visit_mut::visit_path_mut(self, p);
        }
    }
    let mut parsed: syn::Type = syn::parse_str(ty).ok()?;
    let mut q = Qualify(true);
    syn::visit_mut::VisitMut::visit_type_mut(&mut q, &mut parsed);
    q.0.then(|| quote::ToTokens::to_token_stream(&parsed).to_string())
}

/// A value of run-time format (the single build's): `DynStochastic`, `DynNative`, `Knob<..>`.
pub(super) fn dynamic(ty: &str) -> bool {
    ty.contains("DynStochastic") || ty.contains("DynNative") || ty.contains("Knob<")
}

pub(super) fn split_words(t: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in t.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            out.push(c.to_string());
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

pub(super) fn stochastic(ty: &str) -> bool {
    ty.contains("Stochastic<")
}

