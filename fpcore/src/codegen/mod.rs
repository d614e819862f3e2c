//! The generator of Rust from FPCore expressions ([`Gen`]), one function at a time.
//!
//! A `Gen` holds the function's scope, the comments waiting for its next statement, and what the
//! surrounding file must provide. Each `let` becomes a typed Rust `let`, each `while` a Rust loop
//! with FPCore's simultaneous (`while`) or sequential (`while*`) updates, each operation the
//! matching `f32`/`f64`/`i64` operator or method, with the fewest parentheses that keep FPCore's
//! evaluation order. The generated values are in `code`; what `Gen` translates is in its
//! children: one expression (`expr`), types and conversions (`types`), operations
//! (`operations`), `let`s and loops (`statements`), and `if`s (`conditional`).

mod code;
mod conditional;
mod expr;
mod operations;
mod statements;
#[cfg(test)]
mod tests;
mod types;

use std::collections::BTreeSet;
use std::mem;

use crate::ast::Expr;
use crate::names::Names;
use crate::precision::{Context, Ty};
use crate::Unsupported;

pub use code::{indent, Block, Code};

type Res<T> = Result<T, Unsupported>;

/// A variable in scope.
#[derive(Clone, Debug)]
struct Binding {
    symbol: String,
    rust: String,
    ty: Ty,
}

/// The generator of one function: its scope, the comments waiting for the next statement, and
/// what the surrounding file must provide.
#[derive(Debug)]
pub struct Gen<'n> {
    names: &'n mut Names,
    scope: Vec<Binding>,
    notes: Vec<String>,
    /// The items of `std::f64::consts` the code uses.
    pub consts: BTreeSet<&'static str>,
    /// Whether some binding is never read (rustc would warn).
    pub has_unread: bool,
}

impl<'n> Gen<'n> {
    /// A generator with an empty scope, naming variables in `names`.
    pub fn new(names: &'n mut Names) -> Gen<'n> {
        Gen {
            names,
            scope: Vec::new(),
            notes: Vec::new(),
            consts: BTreeSet::new(),
            has_unread: false,
        }
    }

    /// Puts FPCore variable `symbol` of type `ty` in scope (an argument); returns its Rust name.
    pub fn bind(&mut self, symbol: &str, ty: Ty) -> String {
        let rust = self.names.ident(symbol);
        self.scope.push(Binding {
            symbol: symbol.to_string(),
            rust: rust.clone(),
            ty,
        });
        rust
    }

    /// The body of a function computing `e` in context `ctx`.
    pub fn function_body(&mut self, e: &Expr, ctx: &Context) -> Res<Block> {
        let mut block = self.block(e, ctx, None, false)?;
        let notes = mem::take(&mut self.notes);
        let mut lines: Vec<String> = notes.iter().map(|n| comment(n)).collect();
        lines.append(&mut block.lines);
        Ok(Block {
            lines,
            tail: block.tail,
        })
    }

    fn note(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// Appends statement `text` to `lines`, after the comments waiting for it.
    fn statement(&mut self, lines: &mut Vec<String>, text: String) {
        lines.extend(self.notes.drain(..).map(|n| comment(&n)));
        lines.push(text);
    }

    fn lookup(&self, symbol: &str) -> Res<&Binding> {
        self.scope
            .iter()
            .rev()
            .find(|b| b.symbol == symbol)
            .ok_or_else(|| Unsupported(format!("the variable `{symbol}` is not bound")))
    }
}

fn comment(note: &str) -> String {
    format!("// {note}")
}
