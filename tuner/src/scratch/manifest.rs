//! A scratch copy's manifest, edited to build standalone: absolute path dependencies, its own
//! `[workspace]`, what a member inherited made concrete, the `fptune` dependency added.

use std::fs;
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};
use toml_edit::{Array, DocumentMut, Item, Table, TableLike, Value};

use super::FptuneDependency;

/// The workspace a package is a member of.
#[derive(Debug)]
pub(super) struct ParentWorkspace {
    /// Its root directory.
    pub(super) root: PathBuf,
    /// Its root manifest.
    manifest: DocumentMut,
}

/// Finds the workspace the package at `package_root` (canonical) is a member of: the one named
/// by `package.workspace`, else the nearest ancestor whose manifest has `[workspace]` (unless it
/// excludes the package). `None` when the package is its own workspace root or standalone.
pub(super) fn find_workspace(package_root: &Path, manifest: &DocumentMut) -> Result<Option<ParentWorkspace>> {
    if manifest.contains_key("workspace") {
        return Ok(None);
    }
    let explicit = manifest.get("package").and_then(|p| p.get("workspace")).and_then(Item::as_str);
    let candidates: Vec<PathBuf> = match explicit {
        Some(dir) => vec![package_root.join(dir)],
        None => package_root.ancestors().skip(1).map(Path::to_path_buf).collect(),
    };
    for dir in candidates {
        let path = dir.join("Cargo.toml");
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(_) if explicit.is_none() => continue,
            Err(e) => {
                return Err(e)
                    .with_context(|| format!("cannot read the workspace manifest {}", path.display()))
            }
        };
        let doc: DocumentMut = text
            .parse()
            .with_context(|| format!("the workspace manifest {} is not valid TOML", path.display()))?;
        let Some(ws) = doc.get("workspace") else {
            if explicit.is_some() {
                bail!("{} has no [workspace], yet package.workspace names it", path.display());
            }
            continue;
        };
        let excluded = ws.get("exclude").and_then(Item::as_array).is_some_and(|paths| {
            paths.iter().filter_map(Value::as_str).any(|p| package_root.starts_with(dir.join(p)))
        });
        if excluded {
            return Ok(None);
        }
        let root = dir.canonicalize().with_context(|| format!("cannot resolve {}", dir.display()))?;
        return Ok(Some(ParentWorkspace { root, manifest: doc }));
    }
    Ok(None)
}

/// The dependency tables of a manifest (also found under `target.<cfg>`).
const DEPENDENCY_TABLES: [&str; 5] =
    ["dependencies", "dev-dependencies", "dev_dependencies", "build-dependencies", "build_dependencies"];

/// The target tables whose `path` may point out of the package.
const TARGET_ARRAYS: [&str; 4] = ["bin", "example", "test", "bench"];

/// `text` (a manifest) depending on the fptune runtime with `dep`'s features: a new `fptune`
/// dependency at `dep.path`, or the package's own with the features added.
pub(crate) fn with_fptune(text: &str, dep: &FptuneDependency) -> Result<String> {
    let mut doc: DocumentMut = text.parse().context("the manifest is not valid TOML")?;
    let deps = doc
        .entry("dependencies")
        .or_insert_with(|| Item::Table(Table::new()))
        .as_table_like_mut()
        .context("`dependencies` is not a table")?;
    if deps.get("fptune").is_none() {
        let mut t = toml_edit::InlineTable::new();
        t.insert("path", Value::from(dep.path.display().to_string()));
        deps.insert("fptune", Item::Value(Value::InlineTable(t)));
    }
    if !dep.features.is_empty() {
        let entry = deps.get_mut("fptune").context("no fptune dependency")?;
        if entry.is_str() {
            let version = entry.as_str().unwrap_or_default().to_string();
            let mut t = toml_edit::InlineTable::new();
            t.insert("version", Value::from(version));
            *entry = Item::Value(Value::InlineTable(t));
        }
        let table = entry.as_table_like_mut().context("the fptune dependency is not a table")?;
        let features = table.entry("features").or_insert(Item::Value(Value::Array(Array::new())));
        let array = features.as_array_mut().context("fptune's `features` is not an array")?;
        for f in &dep.features {
            if !array.iter().any(|v| v.as_str() == Some(f)) {
                array.push(f.as_str());
            }
        }
    }
    Ok(doc.to_string())
}

/// `Cargo.toml`'s text as the scratch copy needs it (formatting and comments kept):
///
/// - relative `path`s of dependencies, `[patch]` and `[replace]` made absolute (relative to
///   `package_root`); when the package is its own workspace root, paths inside the package stay
///   relative (they are copied with it and may be members);
/// - target paths (`[lib]`, `[[bin]]`, ..., `package.build`) that leave the package made absolute;
/// - an empty `[workspace]` added unless there is one;
/// - for a member of `workspace`: inherited fields and dependencies made concrete, its
///   `[profile]`, `[patch]` and `[replace]` copied, `package.workspace` and
///   `lints.workspace = true` removed. The workspace's lints are not copied: lints only warn or
///   refuse code, and a scratch build is there to test numbers, not style.
pub(super) fn fix_manifest(text: &str, package_root: &Path, workspace: Option<&ParentWorkspace>) -> Result<String> {
    let mut doc: DocumentMut = text.parse().context("the manifest is not valid TOML")?;
    let own_workspace = doc.contains_key("workspace");

    for_each_dependency_table(&mut doc, &mut |deps| {
        absolutize_dependency_paths(deps, package_root, own_workspace);
        Ok(())
    })?;
    for key in ["patch", "replace"] {
        absolutize_overrides(&mut doc, key, package_root, own_workspace);
    }
    absolutize_target_paths(&mut doc, package_root);

    if let Some(ws) = workspace {
        inherit_from_workspace(&mut doc, ws)?;
    }
    if !own_workspace {
        let mut table = Table::new();
        table.decor_mut().set_prefix("\n# Added by cargo-fptune: this scratch copy is its own workspace.\n");
        let resolver = workspace.and_then(|ws| {
            let w = ws.manifest.get("workspace")?;
            match w.get("resolver") {
                Some(r) => r.as_str().map(str::to_string),
                // A virtual workspace without `resolver` uses resolver 1; a root package's
                // edition decides otherwise, and the member's edition decides here.
                None if !ws.manifest.contains_key("package") => Some("1".to_string()),
                None => None,
            }
        });
        if let Some(resolver) = resolver {
            table.insert("resolver", toml_edit::value(resolver));
        }
        doc.insert("workspace", Item::Table(table));
    }
    Ok(doc.to_string())
}

/// Calls `f` on every dependency table: `[dependencies]` and friends, and
/// `[target.<cfg>.dependencies]` and friends.
fn for_each_dependency_table(
    doc: &mut DocumentMut,
    f: &mut dyn FnMut(&mut dyn TableLike) -> Result<()>,
) -> Result<()> {
    for key in DEPENDENCY_TABLES {
        if let Some(deps) = doc.get_mut(key).and_then(Item::as_table_like_mut) {
            f(deps)?;
        }
    }
    if let Some(targets) = doc.get_mut("target").and_then(Item::as_table_like_mut) {
        for (_, target) in targets.iter_mut() {
            let Some(target) = target.as_table_like_mut() else { continue };
            for key in DEPENDENCY_TABLES {
                if let Some(deps) = target.get_mut(key).and_then(Item::as_table_like_mut) {
                    f(deps)?;
                }
            }
        }
    }
    Ok(())
}

/// How far a relative path climbs above its base: > 0 when it leaves it.
fn ascent(path: &Path) -> usize {
    let (mut depth, mut max_ascent) = (0isize, 0isize);
    for component in path.components() {
        match component {
            Component::ParentDir => {
                depth -= 1;
                max_ascent = max_ascent.max(-depth);
            }
            Component::Normal(_) => depth += 1,
            _ => {}
        }
    }
    max_ascent.max(0) as usize
}

/// `path` made absolute against `base` when it is relative (and, when `only_leaving`, when it
/// leaves `base`); `None` when it stays as it is.
fn absolute(path: &str, base: &Path, only_leaving: bool) -> Option<String> {
    let p = Path::new(path);
    if p.is_absolute() || (only_leaving && ascent(p) == 0) {
        return None;
    }
    Some(base.join(p).display().to_string())
}

/// Replaces the string in `item` by `text`, keeping its decoration (spaces, comments).
fn set_string(item: &mut Item, text: String) {
    if let Some(value) = item.as_value_mut() {
        let decor = value.decor().clone();
        *value = Value::from(text);
        *value.decor_mut() = decor;
    }
}

/// Makes the relative `path`s of the entries of a dependency-like table absolute.
fn absolutize_dependency_paths(deps: &mut dyn TableLike, base: &Path, only_leaving: bool) {
    for (_, dep) in deps.iter_mut() {
        let Some(dep) = dep.as_table_like_mut() else { continue };
        if let Some(path) = dep.get_mut("path") {
            if let Some(fixed) = path.as_str().and_then(|p| absolute(p, base, only_leaving)) {
                set_string(path, fixed);
            }
        }
    }
}

/// Makes the paths of `[patch.<source>]` (or `[replace]`) absolute.
fn absolutize_overrides(doc: &mut Table, key: &str, base: &Path, only_leaving: bool) {
    let Some(table) = doc.get_mut(key).and_then(Item::as_table_like_mut) else { return };
    if key == "replace" {
        absolutize_dependency_paths(table, base, only_leaving);
        return;
    }
    for (_, source) in table.iter_mut() {
        if let Some(source) = source.as_table_like_mut() {
            absolutize_dependency_paths(source, base, only_leaving);
        }
    }
}

/// Makes target paths that leave the package absolute (those inside are copied with it).
fn absolutize_target_paths(doc: &mut DocumentMut, base: &Path) {
    let fix = |item: Option<&mut Item>| {
        if let Some(item) = item {
            if let Some(fixed) = item.as_str().and_then(|p| absolute(p, base, true)) {
                set_string(item, fixed);
            }
        }
    };
    if let Some(package) = doc.get_mut("package").and_then(Item::as_table_like_mut) {
        for key in ["build", "readme", "license-file"] {
            fix(package.get_mut(key));
        }
    }
    if let Some(lib) = doc.get_mut("lib").and_then(Item::as_table_like_mut) {
        fix(lib.get_mut("path"));
    }
    for key in TARGET_ARRAYS {
        if let Some(targets) = doc.get_mut(key).and_then(Item::as_array_of_tables_mut) {
            for target in targets.iter_mut() {
                fix(target.get_mut("path"));
            }
        }
    }
}

/// Whether `item` is `{ workspace = true }` (or `x.workspace = true`).
fn inherits(item: &Item) -> bool {
    item.as_table_like().and_then(|t| t.get("workspace")).and_then(Item::as_bool) == Some(true)
}

/// Makes a member's manifest independent of its workspace (see [`fix_manifest`]).
fn inherit_from_workspace(doc: &mut DocumentMut, ws: &ParentWorkspace) -> Result<()> {
    let root_manifest = ws.root.join("Cargo.toml");
    let shared = ws.manifest.get("workspace").and_then(Item::as_table_like);
    let shared_package = shared.and_then(|w| w.get("package")).and_then(Item::as_table_like);
    let shared_deps = shared.and_then(|w| w.get("dependencies")).and_then(Item::as_table_like);

    if let Some(package) = doc.get_mut("package").and_then(Item::as_table_like_mut) {
        package.remove("workspace");
        let inherited: Vec<String> =
            package.iter().filter(|(_, item)| inherits(item)).map(|(key, _)| key.to_string()).collect();
        for key in inherited {
            let Some(value) = shared_package.and_then(|p| p.get(&key)).and_then(Item::as_value) else {
                bail!(
                    "package.{key} inherits from the workspace, but {} has no [workspace.package] {key}",
                    root_manifest.display()
                );
            };
            let mut value = value.clone();
            value.decor_mut().clear();
            let mut item = Item::Value(value);
            if key == "readme" || key == "license-file" {
                if let Some(fixed) = item.as_str().and_then(|p| absolute(p, &ws.root, false)) {
                    set_string(&mut item, fixed);
                }
            }
            package.insert(&key, item);
        }
    }

    for_each_dependency_table(doc, &mut |deps| {
        let inherited: Vec<String> =
            deps.iter().filter(|(_, item)| inherits(item)).map(|(key, _)| key.to_string()).collect();
        for name in inherited {
            let Some(shared) = shared_deps.and_then(|d| d.get(&name)) else {
                bail!(
                    "dependency `{name}` inherits from the workspace, but {} has no \
                     [workspace.dependencies] {name}",
                    root_manifest.display()
                );
            };
            if let Some(dep) = deps.get_mut(&name).and_then(Item::as_table_like_mut) {
                inherit_dependency(dep, shared, &ws.root);
            }
        }
        Ok(())
    })?;

    if doc.get("lints").is_some_and(inherits) {
        doc.remove("lints");
    }
    // cargo applies the root's profiles and overrides to members and ignores theirs.
    let mut next_position =
        doc.iter().filter_map(|(_, item)| item.as_table()?.position()).max().unwrap_or(0) + 1;
    for key in ["profile", "patch", "replace"] {
        doc.remove(key);
        if let Some(item) = ws.manifest.get(key) {
            doc.insert(key, item.clone());
            if key != "profile" {
                absolutize_overrides(doc, key, &ws.root, false);
            }
            if let Some(table) = doc.get_mut(key).and_then(Item::as_table_mut) {
                move_to_end(table, &mut next_position);
            }
        }
    }
    Ok(())
}

/// Gives `table` and its subtables positions from `next` on, so a table copied from another
/// document prints after this one's tables.
fn move_to_end(table: &mut Table, next: &mut usize) {
    table.set_position(*next);
    *next += 1;
    for (_, item) in table.iter_mut() {
        match item {
            Item::Table(sub) => move_to_end(sub, next),
            Item::ArrayOfTables(array) => {
                for sub in array.iter_mut() {
                    move_to_end(sub, next);
                }
            }
            _ => {}
        }
    }
}

/// Turns a member's `{ workspace = true, features = [..], optional = .. }` into the workspace's
/// entry (a version string or a table, its `path` made absolute) with the member's additions:
/// features are the union, other keys the member's.
fn inherit_dependency(dep: &mut dyn TableLike, shared: &Item, ws_root: &Path) {
    dep.remove("workspace");
    let strings = |item: Option<&Item>| -> Vec<String> {
        item.and_then(Item::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default()
    };
    let mut features = Vec::new();
    if let Some(version) = shared.as_str() {
        dep.insert("version", toml_edit::value(version));
    } else if let Some(table) = shared.as_table_like() {
        features = strings(table.get("features"));
        for (key, item) in table.iter() {
            if key == "features" || dep.contains_key(key) {
                continue;
            }
            let Some(value) = item.as_value() else { continue };
            let mut value = value.clone();
            value.decor_mut().clear();
            let mut item = Item::Value(value);
            if key == "path" {
                if let Some(fixed) = item.as_str().and_then(|p| absolute(p, ws_root, false)) {
                    set_string(&mut item, fixed);
                }
            }
            dep.insert(key, item);
        }
    }
    for feature in strings(dep.get("features")) {
        if !features.contains(&feature) {
            features.push(feature);
        }
    }
    if features.is_empty() {
        dep.remove("features");
    } else {
        dep.insert(
            "features",
            Item::Value(Value::Array(features.iter().map(String::as_str).collect::<Array>())),
        );
    }
    dep.fmt();
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn workspace(root: &str, manifest: &str) -> ParentWorkspace {
        ParentWorkspace { root: PathBuf::from(root), manifest: manifest.parse().expect("test manifest") }
    }

    #[test]
    fn relative_dependency_paths_become_absolute_and_formatting_stays() {
        let text = r#"[package]
name = "app" # the app
version = "0.1.0"

[dependencies]
helper = { path = "../helper" } # a sibling
inner = { path = "inner" }
far = { path = "/abs/far" }
plain = "1"

[dependencies.table]
path = "../table"

[target.'cfg(unix)'.dev-dependencies]
unixy = { path = "../unixy", version = "0.1" }

[build-dependencies]
gen.path = "../gen"

[patch.crates-io]
half = { path = "../half" }
"#;
        let fixed = fix_manifest(text, Path::new("/u/app"), None).expect("fixes");
        assert_eq!(
            fixed,
            r#"[package]
name = "app" # the app
version = "0.1.0"

[dependencies]
helper = { path = "/u/app/../helper" } # a sibling
inner = { path = "/u/app/inner" }
far = { path = "/abs/far" }
plain = "1"

[dependencies.table]
path = "/u/app/../table"

[target.'cfg(unix)'.dev-dependencies]
unixy = { path = "/u/app/../unixy", version = "0.1" }

[build-dependencies]
gen.path = "/u/app/../gen"

[patch.crates-io]
half = { path = "/u/app/../half" }

# Added by cargo-fptune: this scratch copy is its own workspace.
[workspace]
"#
        );
    }

    #[test]
    fn a_workspace_root_package_keeps_paths_to_its_members() {
        let text = "[package]\nname = \"root\"\n[workspace]\nmembers = [\"sub\"]\n[dependencies]\nsub = { path = \"sub\" }\nout = { path = \"../out\" }\n";
        let fixed = fix_manifest(text, Path::new("/u/root"), None).expect("fixes");
        assert!(fixed.contains("sub = { path = \"sub\" }"), "{fixed}");
        assert!(fixed.contains("out = { path = \"/u/root/../out\" }"), "{fixed}");
        assert_eq!(fixed.matches("[workspace]").count(), 1);
    }

    #[test]
    fn target_paths_leaving_the_package_become_absolute() {
        let text = "[package]\nname = \"a\"\nbuild = \"../build.rs\"\n[lib]\npath = \"src/lib.rs\"\n[[bin]]\nname = \"b\"\npath = \"../shared/b.rs\"\n";
        let fixed = fix_manifest(text, Path::new("/u/a"), None).expect("fixes");
        assert!(fixed.contains("build = \"/u/a/../build.rs\""), "{fixed}");
        assert!(fixed.contains("path = \"src/lib.rs\""), "{fixed}");
        assert!(fixed.contains("path = \"/u/a/../shared/b.rs\""), "{fixed}");
    }

    const ROOT: &str = r#"[workspace]
members = ["member", "util"]
resolver = "2"

[workspace.package]
version = "0.3.1" # shared
edition = "2021"
license = "MIT"
readme = "README.md"

[workspace.dependencies]
util = { path = "util", features = ["fast"] }
serde = "1"
rand = { version = "0.8", default-features = false }

[workspace.lints.rust]
unsafe_code = "forbid"

[profile.release]
debug = 1

[patch.crates-io]
half = { path = "vendor/half" }
"#;

    #[test]
    fn a_members_inherited_fields_and_dependencies_become_concrete() {
        let member = r#"[package]
name = "member"
version.workspace = true
edition = { workspace = true }
license.workspace = true
readme.workspace = true
workspace = ".."

[dependencies]
util = { workspace = true, features = ["extra"], optional = true }
serde.workspace = true
local = { path = "../local" }

[dev-dependencies.rand]
workspace = true
features = ["std"]

[lints]
workspace = true

[profile.release]
debug = 0
"#;
        let fixed =
            fix_manifest(member, Path::new("/w/member"), Some(&workspace("/w", ROOT))).expect("fixes");
        assert_eq!(
            fixed,
            r#"[package]
name = "member"
version = "0.3.1"
edition = "2021"
license = "MIT"
readme = "/w/README.md"

[dependencies]
util = { features = ["fast", "extra"], optional = true, path = "/w/util" }
serde.version = "1"
local = { path = "/w/member/../local" }

[dev-dependencies.rand]
features = ["std"]
version = "0.8"
default-features = false

[profile.release]
debug = 1

[patch.crates-io]
half = { path = "/w/vendor/half" }

# Added by cargo-fptune: this scratch copy is its own workspace.
[workspace]
resolver = "2"
"#
        );
    }

    #[test]
    fn a_field_missing_from_the_workspace_is_an_error_naming_it() {
        let member = "[package]\nname = \"m\"\nauthors.workspace = true\n";
        let err = fix_manifest(member, Path::new("/w/m"), Some(&workspace("/w", ROOT))).expect_err("fails");
        assert!(err.to_string().contains("package.authors inherits from the workspace"), "{err}");
    }

    #[test]
    fn a_virtual_workspace_without_a_resolver_keeps_resolver_1() {
        let root = "[workspace]\nmembers = [\"m\"]\n";
        let fixed =
            fix_manifest("[package]\nname = \"m\"\n", Path::new("/w/m"), Some(&workspace("/w", root)))
                .expect("fixes");
        assert!(fixed.ends_with("[workspace]\nresolver = \"1\"\n"), "{fixed}");
    }

    #[test]
    fn ascent_counts_how_far_a_path_climbs() {
        assert_eq!(ascent(Path::new("src/lib.rs")), 0);
        assert_eq!(ascent(Path::new("./a/../b")), 0);
        assert_eq!(ascent(Path::new("../x")), 1);
        assert_eq!(ascent(Path::new("a/../../../x")), 2);
    }
}
