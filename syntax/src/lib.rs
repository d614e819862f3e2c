//! The marker syntax of fptune, shared by the `#[fptune::tune]` macro and the `cargo fptune`
//! tuner so that both see the same knobs with the same identities.
//!
//! - [`FloatFormat`] and [`float_leaves`]: which types are floats, and where in a declared type
//!   the float format is written (`f64` in `Vec<f64>`), so the tuner can rewrite exactly there.
//! - [`Marker`]: the `#[tune]` / `#[tune(group = "name")]` attribute.
//! - [`discover`]: every knob of a tuned item, with the errors a user must see.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use proc_macro2::Span;
use quote::ToTokens;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Attribute, Expr, FnArg, GenericArgument, Item, LitStr, Pat, PathArguments, Token, Type};

/// A floating-point format fptune can give a knob.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum FloatFormat {
    /// binary16 (`half::f16`, re-exported as `fptune::f16`).
    F16,
    /// bfloat16 (`half::bf16`, re-exported as `fptune::bf16`).
    BF16,
    /// binary32.
    F32,
    /// binary64.
    F64,
}

impl FloatFormat {
    /// Every format, narrowest first.
    pub const ALL: [FloatFormat; 4] = [Self::BF16, Self::F16, Self::F32, Self::F64];

    /// How the format is spelled in a user's source after tuning.
    pub fn rust(self) -> &'static str {
        match self {
            Self::F64 => "f64",
            Self::F32 => "f32",
            Self::F16 => "fptune::f16",
            Self::BF16 => "fptune::bf16",
        }
    }

    /// The stochastic type of the format, as the stochastic build spells it.
    pub fn stochastic(self) -> &'static str {
        match self {
            Self::F64 => "::fptune::Sf64",
            Self::F32 => "::fptune::Sf32",
            Self::F16 => "::fptune::Sf16",
            Self::BF16 => "::fptune::Sbf16",
        }
    }

    /// Short name: `f64`, `f32`, `f16`, `bf16`.
    pub fn short(self) -> &'static str {
        match self {
            Self::F64 => "f64",
            Self::F32 => "f32",
            Self::F16 => "f16",
            Self::BF16 => "bf16",
        }
    }

    /// The format named by a type's last path segment, if it is one.
    pub fn from_ident(name: &str) -> Option<FloatFormat> {
        match name {
            "f64" => Some(Self::F64),
            "f32" => Some(Self::F32),
            "f16" => Some(Self::F16),
            "bf16" => Some(Self::BF16),
            _ => None,
        }
    }

    /// Parses a short name (`f64`, `f32`, `f16`, `bf16`).
    pub fn parse(name: &str) -> Option<FloatFormat> {
        Self::from_ident(name.trim())
    }
}

impl fmt::Display for FloatFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short())
    }
}

/// Where a float format is written inside a type.
#[derive(Clone, Debug)]
pub struct Leaf {
    /// The format written there, or `None` for the name of a tuned type alias.
    pub format: Option<FloatFormat>,
    /// The alias name when `format` is `None`.
    pub alias: Option<String>,
    /// The tokens of the leaf (the whole path, e.g. `fptune::f16`).
    pub span: Span,
    /// Start and end of the leaf as (line, column), 1-based line, 0-based column.
    pub start: (usize, usize),
    /// End of the leaf.
    pub end: (usize, usize),
}

/// The probe build's knob type `::fptune::__rt::Probe<F, K>`, and the single build's
/// `::fptune::__rt::Knob<F, K>`: a float of format `F`.
fn probe_format(path: &syn::Path) -> Option<FloatFormat> {
    let last = path.segments.last()?;
    if last.ident != "Probe" && last.ident != "Knob" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.first()? {
        GenericArgument::Type(Type::Path(p)) if p.qself.is_none() => is_float_path(&p.path),
        _ => None,
    }
}

fn is_float_path(path: &syn::Path) -> Option<FloatFormat> {
    let last = path.segments.last()?;
    if !last.arguments.is_none() {
        return probe_format(path);
    }
    let name = last.ident.to_string();
    let format = FloatFormat::from_ident(&name)?;
    // `f64`/`f32` are primitives only when written alone (or as core::primitive::f64);
    // `f16`/`bf16` are `half`'s types under any path (`fptune::f16`, `half::f16`, `f16`).
    match format {
        FloatFormat::F64 | FloatFormat::F32 => {
            let alone = path.segments.len() == 1 && path.leading_colon.is_none();
            (alone || primitive_path(path)).then_some(format)
        }
        _ => Some(format),
    }
}

/// The format of `ty` when `ty` itself is a float type (`f64`, `fptune::f16`, a probe type), not
/// a container of floats.
pub fn float_type(ty: &Type) -> Option<FloatFormat> {
    match ty {
        Type::Path(p) if p.qself.is_none() => is_float_path(&p.path),
        Type::Paren(p) => float_type(&p.elem),
        Type::Group(g) => float_type(&g.elem),
        _ => None,
    }
}

/// Every place in `ty` where a float format (or the name of one of `aliases`) is written, in
/// source order. Generic arguments, arrays, slices, references, tuples are looked through.
pub fn float_leaves(ty: &Type, aliases: &BTreeSet<String>) -> Vec<Leaf> {
    let mut out = Vec::new();
    collect_leaves(ty, aliases, &mut out);
    out
}

fn leaf(span: Span, format: Option<FloatFormat>, alias: Option<String>) -> Leaf {
    let (s, e) = (span.start(), span.end());
    Leaf { format, alias, span, start: (s.line, s.column), end: (e.line, e.column) }
}

fn collect_leaves(ty: &Type, aliases: &BTreeSet<String>, out: &mut Vec<Leaf>) {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            if let Some(format) = is_float_path(&p.path) {
                out.push(leaf(p.span(), Some(format), None));
                return;
            }
            if p.path.segments.len() == 1 && p.path.leading_colon.is_none() {
                let name = p.path.segments[0].ident.to_string();
                if aliases.contains(&name) && p.path.segments[0].arguments.is_none() {
                    out.push(leaf(p.span(), None, Some(name)));
                    return;
                }
            }
            for seg in &p.path.segments {
                if let PathArguments::AngleBracketed(args) = &seg.arguments {
                    for arg in &args.args {
                        if let GenericArgument::Type(t) = arg {
                            collect_leaves(t, aliases, out);
                        }
                    }
                }
            }
        }
        Type::Array(a) => collect_leaves(&a.elem, aliases, out),
        Type::Slice(s) => collect_leaves(&s.elem, aliases, out),
        Type::Reference(r) => collect_leaves(&r.elem, aliases, out),
        Type::Ptr(p) => collect_leaves(&p.elem, aliases, out),
        Type::Paren(p) => collect_leaves(&p.elem, aliases, out),
        Type::Group(g) => collect_leaves(&g.elem, aliases, out),
        Type::Tuple(t) => t.elems.iter().for_each(|e| collect_leaves(e, aliases, out)),
        _ => {}
    }
}

/// Whether values of `ty` can be converted on a store: a float (or tuned alias), or a `Vec`,
/// array or `Box` of such values, by value. References and slices are not (a borrowed buffer
/// cannot change type, which is what couples knobs).
pub fn is_storable_float(ty: &Type, aliases: &BTreeSet<String>) -> bool {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            if is_float_path(&p.path).is_some() {
                return true;
            }
            let Some(last) = p.path.segments.last() else { return false };
            if p.path.segments.len() == 1 && last.arguments.is_none() {
                return aliases.contains(&last.ident.to_string());
            }
            if last.ident == "Vec" || last.ident == "Box" {
                if let PathArguments::AngleBracketed(args) = &last.arguments {
                    if let Some(GenericArgument::Type(t)) = args.args.first() {
                        return is_storable_float(t, aliases);
                    }
                }
            }
            false
        }
        Type::Array(a) => is_storable_float(&a.elem, aliases),
        Type::Paren(p) => is_storable_float(&p.elem, aliases),
        Type::Group(g) => is_storable_float(&g.elem, aliases),
        Type::Tuple(t) => !t.elems.is_empty() && t.elems.iter().all(|e| is_storable_float(e, aliases)),
        _ => false,
    }
}

/// A float literal's digits, which a suffix may follow: `0.` is written `0.0` (`0.f64` would be a
/// field access).
pub fn suffixable_digits(lit: &syn::LitFloat) -> String {
    let digits = lit.base10_digits();
    if digits.ends_with('.') { format!("{digits}0") } else { digits.to_string() }
}

/// The arguments of the runtime's literal call for the digits of an unsuffixed float literal:
/// `{digits}f64, {digits}f32`, or `f32`'s infinity where the value is too large for `f32` (a
/// `1e99f32` the compiler refuses to write, where `1e99` given an `f32` place is that infinity).
pub fn literal_args(digits: &str) -> String {
    let single = if too_large_for_f32(digits) { "::fptune::__rt::primitive::f32::INFINITY".to_string() } else { format!("{digits}f32") };
    format!("{digits}f64, {single}")
}

/// Whether a float literal's digits name a value `f32` holds only as an infinity (`1e99`).
pub fn too_large_for_f32(digits: &str) -> bool {
    digits.parse::<f64>().is_ok_and(|v| (v as f32).is_infinite())
}

/// Normalised text of a type, as the report shows it (`Vec<f64>`, `&mut [f32]`).
pub fn type_text(ty: &Type) -> String {
    let raw = ty.to_token_stream().to_string();
    let mut out = String::with_capacity(raw.len());
    let mut prev = ' ';
    for (i, c) in raw.char_indices() {
        let next = raw[i + c.len_utf8()..].chars().next().unwrap_or(' ');
        if c == ' ' {
            let glue = matches!(prev, '<' | '&' | '[' | '(' | ':' | '*')
                || matches!(next, '<' | '>' | ',' | ']' | ')' | ';' | ':');
            if glue && !(prev == ';' || prev == ',') {
                continue;
            }
        }
        out.push(c);
        prev = c;
    }
    out.replace("mut[", "mut [").replace("const[", "const [")
}

/// `#[tune]` or `#[tune(group = "name")]`.
#[derive(Clone, Debug, Default)]
pub struct Marker {
    /// The group, with the span of its name.
    pub group: Option<(String, Span)>,
    /// `#[fptune::tune(printed)]`: the floats the item prints are checked results too, in runs
    /// that ask for them (the tuner's `--check-printed`).
    pub printed: bool,
}

mod kw {
    syn::custom_keyword!(group);
    syn::custom_keyword!(printed);
}

impl Parse for Marker {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut marker = Marker::default();
        while !input.is_empty() {
            if input.peek(kw::group) {
                input.parse::<kw::group>()?;
                input.parse::<Token![=]>()?;
                let name: LitStr = input.parse()?;
                if name.value().trim().is_empty() {
                    return Err(syn::Error::new(name.span(), "a group needs a name: `group = \"name\"`"));
                }
                if marker.group.is_some() {
                    return Err(syn::Error::new(name.span(), "`group` is given twice"));
                }
                marker.group = Some((name.value(), name.span()));
            } else if input.peek(kw::printed) {
                input.parse::<kw::printed>()?;
                marker.printed = true;
            } else {
                let unknown: proc_macro2::TokenTree = input.parse()?;
                return Err(syn::Error::new(
                    unknown.span(),
                    format!("unknown argument `{unknown}`: `#[tune]` takes `group = \"name\"` (and `#[fptune::tune]` also `printed`)"),
                ));
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(marker)
    }
}

/// Whether an attribute is a knob marker (`#[tune]`, `#[tune(..)]`, `#[fptune::tune]`).
pub fn is_marker(attr: &Attribute) -> bool {
    let path = attr.path();
    path.is_ident("tune")
        || (path.segments.len() == 2 && path.segments[0].ident == "fptune" && path.segments[1].ident == "tune")
}

/// Parses the marker of an attribute known to be one.
pub fn parse_marker(attr: &Attribute) -> syn::Result<Marker> {
    match &attr.meta {
        syn::Meta::Path(_) => Ok(Marker::default()),
        syn::Meta::List(list) => list.parse_args::<Marker>(),
        syn::Meta::NameValue(nv) => Err(syn::Error::new(
            nv.span(),
            "write `#[tune]` or `#[tune(group = \"name\")]`",
        )),
    }
}

/// What kind of declaration a knob is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum KnobKind {
    /// `let x: T = ..`
    Let,
    /// A function parameter.
    Param,
    /// A function's return value.
    Return,
    /// A struct field.
    Field,
    /// A `static`.
    Static,
    /// A `const`.
    Const,
    /// A `type` alias: one knob for every use.
    Alias,
}

impl KnobKind {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Let => "let",
            Self::Param => "param",
            Self::Return => "return",
            Self::Field => "field",
            Self::Static => "static",
            Self::Const => "const",
            Self::Alias => "alias",
        }
    }
}

impl fmt::Display for KnobKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A knob: a declaration whose float type the tuner may change.
#[derive(Clone, Debug)]
pub struct Knob {
    /// The variable, parameter, field, static, alias or function name (`scale::return` style for a
    /// return value is left to the reader: the name is the function's).
    pub name: String,
    /// The kind of declaration.
    pub kind: KnobKind,
    /// The declared type, normalised.
    pub ty: String,
    /// Where the float format is written in the type (one or more places).
    pub leaves: Vec<Leaf>,
    /// The format written (the first leaf's, or the alias's for a leaf naming a tuned alias).
    pub format: Option<FloatFormat>,
    /// The group, if any.
    pub group: Option<String>,
    /// The span of the name.
    pub span: Span,
    /// Line (1-based) and column (1-based) of the name.
    pub line: usize,
    /// Column of the name, 1-based.
    pub column: usize,
    /// Enclosing function or item, for the report (`det`, `Controller::step`).
    pub scope: String,
}

/// The knobs of one tuned item and the errors found in its markers.
#[derive(Debug, Default)]
pub struct Discovery {
    /// Knobs in source order.
    pub knobs: Vec<Knob>,
    /// Errors at the user's tokens.
    pub errors: Vec<syn::Error>,
    /// Knobs marked on a `let` without a written type (`#[tune] let x = a * b;`): the float type
    /// rustc infers for them is theirs. The macro leaves them as they are (at their inferred
    /// type, the program is the user's); the tuner writes the type rustc gives them before it
    /// finds the knobs, and says where it cannot.
    pub untyped: Vec<Untyped>,
}

/// A knob marked on a `let` whose type is not written.
#[derive(Clone, Debug)]
pub struct Untyped {
    /// The variable.
    pub name: String,
    /// Its identifier.
    pub span: Span,
    /// Line (1-based) of the name.
    pub line: usize,
    /// Column (1-based) of the name.
    pub column: usize,
}

impl Discovery {
    /// All errors combined into one, if any.
    pub fn error(&self) -> Option<syn::Error> {
        let mut it = self.errors.iter().cloned();
        let mut first = it.next()?;
        for e in it {
            first.combine(e);
        }
        Some(first)
    }
}

/// How the tuned item was marked at its top: `#[fptune::tune]` with its arguments.
#[derive(Clone, Debug, Default)]
pub struct Top {
    /// The group given at the top (for a `type` alias, `static` or `const` marked directly).
    pub marker: Marker,
}

/// Finds every knob of a tuned item (the item carrying `#[fptune::tune]`, whose own attribute has
/// already been removed) and checks the markers. `top` is the item's own marker.
pub fn discover(item: &Item, top: &Top) -> Discovery {
    let mut d = Discoverer { aliases: tuned_aliases(item, top), ..Discoverer::default() };
    d.top_level(item, top);
    d.check_groups();
    Discovery { knobs: d.knobs, errors: d.errors, untyped: d.untyped }
}

/// Names of the type aliases that are knobs in `item` (marked inside it, or the item itself).
pub fn tuned_aliases(item: &Item, _top: &Top) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Item::Type(t) = item {
        out.insert(t.ident.to_string());
    }
    struct Aliases<'a>(&'a mut BTreeSet<String>);
    impl<'ast> Visit<'ast> for Aliases<'_> {
        fn visit_item_type(&mut self, t: &'ast syn::ItemType) {
            if t.attrs.iter().any(is_marker) {
                self.0.insert(t.ident.to_string());
            }
        }
        fn visit_impl_item_type(&mut self, t: &'ast syn::ImplItemType) {
            if t.attrs.iter().any(is_marker) {
                self.0.insert(t.ident.to_string());
            }
        }
    }
    Aliases(&mut out).visit_item(item);
    out
}

#[derive(Default)]
struct Discoverer {
    knobs: Vec<Knob>,
    errors: Vec<syn::Error>,
    untyped: Vec<Untyped>,
    aliases: BTreeSet<String>,
    scope: Vec<String>,
}

impl Discoverer {
    fn top_level(&mut self, item: &Item, top: &Top) {
        match item {
            Item::Type(t) => {
                self.add(&t.ident, KnobKind::Alias, &t.ty, Some(top.marker.clone()), t.ident.span());
            }
            Item::Static(s) => {
                self.add(&s.ident, KnobKind::Static, &s.ty, Some(top.marker.clone()), s.ident.span());
            }
            Item::Const(c) => {
                self.add(&c.ident, KnobKind::Const, &c.ty, Some(top.marker.clone()), c.ident.span());
            }
            _ => {
                if let Some((_, span)) = &top.marker.group {
                    self.errors.push(syn::Error::new(
                        *span,
                        "`group` belongs on a knob: write `#[tune(group = \"..\")]` on the declarations inside",
                    ));
                }
                self.visit_item(item);
            }
        }
    }

    fn marker_of(&mut self, attrs: &[Attribute]) -> Option<Marker> {
        let mut found = None;
        for attr in attrs.iter().filter(|a| is_marker(a)) {
            if found.is_some() {
                self.errors.push(syn::Error::new_spanned(attr, "`#[tune]` is given twice"));
                continue;
            }
            match parse_marker(attr) {
                Ok(m) => found = Some(m),
                Err(e) => {
                    self.errors.push(e);
                    found = Some(Marker::default());
                }
            }
        }
        found
    }

    fn add(&mut self, name: &dyn ToTokens, kind: KnobKind, ty: &Type, marker: Option<Marker>, span: Span) {
        let Some(marker) = marker else { return };
        let leaves = float_leaves(ty, &self.aliases);
        let name = name.to_token_stream().to_string();
        if leaves.is_empty() {
            self.errors.push(syn::Error::new(
                ty.span(),
                format!(
                    "`#[tune]` marks a float: `{name}` has type `{}`, in which no float type \
                     (f64, f32, fptune::f16, fptune::bf16) is written",
                    type_text(ty)
                ),
            ));
            return;
        }
        let format = leaves.iter().find_map(|l| l.format);
        let start = span.start();
        self.knobs.push(Knob {
            name,
            kind,
            ty: type_text(ty),
            leaves,
            format,
            group: marker.group.map(|(g, _)| g),
            span,
            line: start.line,
            column: start.column + 1,
            scope: self.scope.join("::"),
        });
    }

    fn check_groups(&mut self) {
        let mut first: BTreeMap<&str, &Knob> = BTreeMap::new();
        let mut errors = Vec::new();
        for k in &self.knobs {
            let Some(g) = &k.group else { continue };
            match first.get(g.as_str()) {
                None => {
                    first.insert(g, k);
                }
                Some(f) if f.format != k.format || f.leaves.len() != k.leaves.len() => {
                    errors.push(syn::Error::new(
                        k.span,
                        format!(
                            "group `{g}` mixes declared types: `{}` is `{}` but `{}` (line {}) is `{}`; \
                             knobs of a group share one precision, so declare them with the same float type",
                            k.name, k.ty, f.name, f.line, f.ty
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
        self.errors.extend(errors);
    }

    fn fn_sig(&mut self, attrs: &[Attribute], sig: &syn::Signature) {
        for input in &sig.inputs {
            match input {
                FnArg::Typed(pt) => {
                    let marker = self.marker_of(&pt.attrs);
                    if marker.is_none() {
                        continue;
                    }
                    match &*pt.pat {
                        Pat::Ident(pi) => {
                            self.add(&pi.ident, KnobKind::Param, &pt.ty, marker, pi.ident.span());
                        }
                        other => self.errors.push(syn::Error::new(
                            other.span(),
                            "a knob is one named parameter: write `#[tune] name: f64`",
                        )),
                    }
                }
                FnArg::Receiver(r) => {
                    if let Some(attr) = r.attrs.iter().find(|a| is_marker(a)) {
                        self.errors.push(syn::Error::new_spanned(attr, "`self` cannot be a knob"));
                    }
                }
            }
        }
        let marker = self.marker_of(attrs);
        if marker.is_some() {
            match &sig.output {
                syn::ReturnType::Type(_, ty) => {
                    self.add(&sig.ident, KnobKind::Return, ty, marker, sig.ident.span());
                }
                syn::ReturnType::Default => self.errors.push(syn::Error::new(
                    sig.ident.span(),
                    "`#[tune]` on a function marks its return value, and this function returns nothing",
                )),
            }
        }
    }
}

impl<'ast> Visit<'ast> for Discoverer {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.scope.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.scope.pop();
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.scope.push(f.sig.ident.to_string());
        self.fn_sig(&f.attrs, &f.sig);
        self.visit_block(&f.block);
        self.scope.pop();
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let name = match &*i.self_ty {
            Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
            other => type_text(other),
        };
        self.scope.push(name);
        syn::visit::visit_item_impl(self, i);
        self.scope.pop();
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.scope.push(f.sig.ident.to_string());
        self.fn_sig(&f.attrs, &f.sig);
        self.visit_block(&f.block);
        self.scope.pop();
    }

    fn visit_impl_item_const(&mut self, c: &'ast syn::ImplItemConst) {
        let m = self.marker_of(&c.attrs);
        self.add(&c.ident, KnobKind::Const, &c.ty, m, c.ident.span());
    }

    fn visit_impl_item_type(&mut self, t: &'ast syn::ImplItemType) {
        let m = self.marker_of(&t.attrs);
        self.add(&t.ident, KnobKind::Alias, &t.ty, m, t.ident.span());
    }

    fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
        self.scope.push(s.ident.to_string());
        for (i, field) in s.fields.iter().enumerate() {
            let m = self.marker_of(&field.attrs);
            if m.is_none() {
                continue;
            }
            match &field.ident {
                Some(id) => self.add(id, KnobKind::Field, &field.ty, m, id.span()),
                None => {
                    let index = syn::Index::from(i);
                    self.add(&index, KnobKind::Field, &field.ty, m, field.ty.span());
                }
            }
        }
        self.scope.pop();
    }

    fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
        let m = self.marker_of(&s.attrs);
        self.add(&s.ident, KnobKind::Static, &s.ty, m, s.ident.span());
        self.visit_expr(&s.expr);
    }

    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        let m = self.marker_of(&c.attrs);
        self.add(&c.ident, KnobKind::Const, &c.ty, m, c.ident.span());
        self.visit_expr(&c.expr);
    }

    fn visit_item_type(&mut self, t: &'ast syn::ItemType) {
        let m = self.marker_of(&t.attrs);
        self.add(&t.ident, KnobKind::Alias, &t.ty, m, t.ident.span());
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        let marker = self.marker_of(&local.attrs);
        if marker.is_some() {
            match &local.pat {
                Pat::Type(pt) => match &*pt.pat {
                    Pat::Ident(pi) => {
                        self.add(&pi.ident, KnobKind::Let, &pt.ty, marker, pi.ident.span());
                    }
                    other => self.errors.push(syn::Error::new(
                        other.span(),
                        "a knob is one named variable: write `#[tune] let name: f64 = ...`",
                    )),
                },
                Pat::Ident(pi) => {
                    let start = pi.ident.span().start();
                    self.untyped.push(Untyped {
                        name: pi.ident.to_string(),
                        span: pi.ident.span(),
                        line: start.line,
                        column: start.column + 1,
                    });
                }
                other => self.errors.push(syn::Error::new(
                    other.span(),
                    "a knob is one named variable: write `#[tune] let name: f64 = ...`",
                )),
            }
        }
        syn::visit::visit_local(self, local);
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        syn::visit::visit_expr(self, e);
    }
}

/// Errors for `#[tune]` attributes left where no knob can be (after knobs were taken out).
pub fn stray_markers(item: &Item) -> Vec<syn::Error> {
    struct Stray(Vec<syn::Error>);
    impl<'ast> Visit<'ast> for Stray {
        fn visit_attribute(&mut self, attr: &'ast Attribute) {
            if is_marker(attr) {
                self.0.push(syn::Error::new_spanned(
                    attr,
                    "`#[tune]` goes on a `let`, a function parameter, a function (its return value), \
                     a struct field, a `static`/`const` or a `type` alias",
                ));
            }
        }
    }
    let mut s = Stray(Vec::new());
    s.visit_item(item);
    s.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn knobs(src: &str) -> Discovery {
        let item: Item = syn::parse_str(src).expect("test source parses");
        discover(&item, &Top::default())
    }

    #[test]
    fn every_marking_site_is_a_knob() {
        let d = knobs(
            r#"mod k {
                #[tune] type Real = f64;
                pub struct S { #[tune] a: f32, b: f64, #[tune(group = "g")] c: Vec<f64> }
                #[tune] static SCALE: f64 = 2.0;
                #[tune] fn f(#[tune] x: &[f64], #[tune(group = "g")] y: Vec<f64>) -> f64 {
                    #[tune] let mut h: Vec<Vec<f64>> = vec![];
                    #[tune] let d: [fptune::f16; 3] = [fptune::f16::ZERO; 3];
                    #[tune] let r: Real = 1.0;
                    0.0
                }
            }"#,
        );
        assert!(d.errors.is_empty(), "{:?}", d.error());
        let names: Vec<(String, KnobKind)> = d.knobs.iter().map(|k| (k.name.clone(), k.kind)).collect();
        assert_eq!(
            names,
            vec![
                ("Real".into(), KnobKind::Alias),
                ("a".into(), KnobKind::Field),
                ("c".into(), KnobKind::Field),
                ("SCALE".into(), KnobKind::Static),
                ("x".into(), KnobKind::Param),
                ("y".into(), KnobKind::Param),
                ("f".into(), KnobKind::Return),
                ("h".into(), KnobKind::Let),
                ("d".into(), KnobKind::Let),
                ("r".into(), KnobKind::Let),
            ]
        );
        let d_knob = &d.knobs[8];
        assert_eq!(d_knob.format, Some(FloatFormat::F16));
        assert_eq!(d_knob.ty, "[fptune::f16; 3]");
        assert_eq!(d.knobs[7].ty, "Vec<Vec<f64>>");
        assert_eq!(d.knobs[4].ty, "&[f64]");
        assert_eq!(d.knobs[9].leaves[0].alias.as_deref(), Some("Real"));
        assert_eq!(d.knobs[7].scope, "k::f");
    }

    #[test]
    fn a_non_float_knob_is_an_error_at_its_type() {
        let d = knobs("fn f() { #[tune] let n: usize = 3; }");
        let e = d.error().expect("an error");
        assert!(e.to_string().contains("`n` has type `usize`"), "{e}");
    }

    #[test]
    fn a_let_knob_without_its_type_written_is_the_type_rustc_infers() {
        let d = knobs("fn f() { #[tune] let x = 3.0; }");
        assert!(d.error().is_none());
        assert!(d.knobs.is_empty());
        assert_eq!(d.untyped.iter().map(|u| (u.name.as_str(), u.line, u.column)).collect::<Vec<_>>(), [("x", 1, 22)]);
    }

    #[test]
    fn unknown_arguments_and_conflicting_groups_are_errors() {
        let d = knobs("fn f() { #[tune(precision = 3)] let x: f64 = 1.0; }");
        assert!(d.error().expect("an error").to_string().contains("unknown argument `precision`"));
        let d = knobs(
            r#"fn f() { #[tune(group = "g")] let x: f64 = 1.0; #[tune(group = "g")] let y: f32 = 1.0; }"#,
        );
        assert!(d.error().expect("an error").to_string().contains("group `g` mixes declared types"));
    }

    #[test]
    fn leaves_point_at_the_float_inside_the_type() {
        let ty: Type = syn::parse_str("Vec<(f64, usize, fptune::f16)>").expect("type parses");
        let leaves = float_leaves(&ty, &BTreeSet::new());
        assert_eq!(leaves.len(), 2);
        assert_eq!(leaves[0].format, Some(FloatFormat::F64));
        assert_eq!(leaves[1].format, Some(FloatFormat::F16));
        assert!(is_storable_float(&syn::parse_str("Vec<Vec<f32>>").expect("type"), &BTreeSet::new()));
        assert!(!is_storable_float(&syn::parse_str("&[f32]").expect("type"), &BTreeSet::new()));
        assert!(is_storable_float(&syn::parse_str("(Vec<f64>, f32)").expect("type"), &BTreeSet::new()));
        assert!(!is_storable_float(&syn::parse_str("(f64, usize)").expect("type"), &BTreeSet::new()));
    }

    #[test]
    fn type_text_reads_like_source() {
        for t in ["Vec<Vec<f64>>", "&mut [f32]", "[f64; 3]", "&[fptune::f16]", "(f64, f32)"] {
            let ty: Type = syn::parse_str(t).expect("type parses");
            assert_eq!(type_text(&ty), t);
        }
    }
}

/// Whether an item attribute is `#[fptune::tune]` (or `#[tune]` where imported): the item is tuned.
pub fn is_tune_attribute(attr: &Attribute) -> bool {
    is_marker(attr)
}

/// Every knob of every tuned item of a file: items carrying `#[fptune::tune]`, at any depth of
/// (untuned) inline modules. Knob order is source order.
pub fn discover_file(file: &syn::File) -> Discovery {
    let mut out = Discovery::default();
    discover_items(&file.items, &mut out);
    out
}

fn discover_items(items: &[Item], out: &mut Discovery) {
    for item in items {
        let attrs = item_attrs(item);
        if let Some(attr) = attrs.iter().find(|a| is_tune_attribute(a)) {
            let marker = match parse_marker(attr) {
                Ok(m) => m,
                Err(e) => {
                    out.errors.push(e);
                    Marker::default()
                }
            };
            // The attribute being expanded is the one taken out, as rustc does: a `#[tune]` beside
            // it (`#[fptune::tune] #[tune] fn f() -> f64`) marks the function's return value.
            let mut bare = item.clone();
            if let Some(a) = item_attrs_mut(&mut bare) {
                if let Some(at) = a.iter().position(is_tune_attribute) {
                    a.remove(at);
                }
            }
            let d = discover(&bare, &Top { marker });
            out.knobs.extend(d.knobs);
            out.errors.extend(d.errors);
            out.untyped.extend(d.untyped);
        } else if let Item::Mod(m) = item {
            if let Some((_, inner)) = &m.content {
                discover_items(inner, out);
            }
        }
    }
}

/// A primitive named by its full path, `core::primitive::f64` (also `::core::..`, `std::..`, and
/// `fptune::__rt::primitive::f64`, which the tuner writes as it resolves in every edition): the
/// way to keep a float primitive in the stochastic build.
pub fn primitive_path(path: &syn::Path) -> bool {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    matches!(names.iter().map(String::as_str).collect::<Vec<_>>().as_slice(), ["core" | "std", "primitive", _] | ["fptune", "__rt", "primitive", _])
}

/// An item's outer attributes (none for the kinds `#[fptune::tune]` never goes on).
pub fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Mod(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        _ => &[],
    }
}

fn item_attrs_mut(item: &mut Item) -> Option<&mut Vec<Attribute>> {
    Some(match item {
        Item::Mod(i) => &mut i.attrs,
        Item::Fn(i) => &mut i.attrs,
        Item::Impl(i) => &mut i.attrs,
        Item::Struct(i) => &mut i.attrs,
        Item::Type(i) => &mut i.attrs,
        Item::Static(i) => &mut i.attrs,
        Item::Const(i) => &mut i.attrs,
        Item::Enum(i) => &mut i.attrs,
        Item::Trait(i) => &mut i.attrs,
        _ => return None,
    })
}

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
mod file_tests {
    use super::*;

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

#[cfg(test)]
mod probe_tests {
    use super::*;

    #[test]
    fn a_probe_type_is_one_float_of_its_format() {
        let ty: Type = syn::parse_str("Vec<::fptune::__rt::Probe<f32, 7>>").expect("type");
        let leaves = float_leaves(&ty, &BTreeSet::new());
        assert_eq!(leaves.len(), 1);
        assert_eq!(leaves[0].format, Some(FloatFormat::F32));
        assert!(is_storable_float(&ty, &BTreeSet::new()));
    }
}
