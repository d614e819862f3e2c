//! A configuration written into source text: each leaf of the knobs rewritten in place to the
//! format chosen for it, the rest of the text as it was.

use crate::Leaf;

/// Byte offset of a (1-based line, 0-based char column) position in `text`.
pub fn offset_of(text: &str, (line, column): (usize, usize)) -> Option<usize> {
    let start = if line <= 1 {
        0
    } else {
        text.match_indices('\n').nth(line - 2).map(|(i, _)| i + 1)?
    };
    let rest = &text[start..];
    let mut chars = rest.char_indices();
    match chars.nth(column) {
        Some((i, _)) => Some(start + i),
        None if rest.chars().count() == column => Some(start + rest.len()),
        None => None,
    }
}

/// `text` with every leaf of `knobs` rewritten to the format chosen for it, as the tuner writes a
/// configuration into a scratch copy (and `cargo fptune apply` into the user's tree). Comments and
/// formatting are untouched: only the float type tokens change.
pub fn rewrite_leaves(text: &str, edits: &[(&Leaf, String)]) -> Option<String> {
    let mut spans: Vec<(usize, usize, &str)> = Vec::with_capacity(edits.len());
    for (leaf, replacement) in edits {
        let a = offset_of(text, leaf.start)?;
        let b = offset_of(text, leaf.end)?;
        spans.push((a, b, replacement.as_str()));
    }
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (a, b, r) in spans {
        out.replace_range(a..b, r);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discover_file;

    #[test]
    fn a_files_tuned_items_are_found_at_any_depth_and_leaves_rewrite_in_place() {
        let text = "mod outer {\n    #[fptune::tune]\n    pub fn f(#[tune] x: Vec<f64>) -> f64 {\n        // keep me\n        #[tune] let y: f64 = 1.0;\n        y\n    }\n}\n#[fptune::tune]\ntype Real = f64;\nfn untouched(z: f64) {}\n";
        let file: syn::File = syn::parse_str(text).expect("parses");
        let d = discover_file(&file);
        assert!(d.errors.is_empty());
        let names: Vec<&str> = d.knobs.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["x", "y", "Real"]);
        let edits: Vec<(&Leaf, String)> =
            d.knobs.iter().map(|k| (&k.leaves[0], "f32".to_string())).collect();
        let out = rewrite_leaves(text, &edits).expect("offsets");
        assert!(out.contains("x: Vec<f32>"));
        assert!(out.contains("let y: f32 = 1.0;"));
        assert!(out.contains("type Real = f32;"));
        assert!(out.contains("// keep me"));
        assert!(out.contains("fn untouched(z: f64)"));
    }
}
