//! The generated Rust: expressions ([`Code`]) and blocks ([`Block`]), as text to paste.
//!
//! An expression knows its precedence and type, so that operands are parenthesised only where
//! Rust needs it, and a long chain of one operator breaks before each operator.

use crate::precision::Ty;

/// Rust's operator precedence levels, loosest first.
pub(super) mod level {
    /// `if`/`{ }` expressions: parenthesised as operands.
    pub const BLOCK: u8 = 0;
    pub const OR: u8 = 1;
    pub const AND: u8 = 2;
    pub const CMP: u8 = 3;
    pub const ADD: u8 = 4;
    pub const MUL: u8 = 5;
    pub const CAST: u8 = 6;
    pub const UNARY: u8 = 7;
    /// Literals, paths, variables, calls and method calls.
    pub const ATOM: u8 = 8;
}

/// A generated Rust expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Code {
    /// The source text; lines after the first are indented relative to the first.
    pub text: String,
    /// Its precedence level.
    pub(super) level: u8,
    /// Its type.
    pub ty: Ty,
    /// Whether rustc knows its type without context (false for unsuffixed literals, whose type
    /// rustc infers, and which cannot receive a method call).
    pub(super) typed: bool,
    /// For a chain of operations of one level (`a + b - c`, `p && q`): the first operand and
    /// then each operator with its operand, where a long line may break.
    pub(super) chain: Vec<String>,
}

impl Code {
    pub(super) fn new(text: String, level: u8, ty: Ty, typed: bool) -> Code {
        Code {
            text,
            level,
            ty,
            typed,
            chain: Vec::new(),
        }
    }

    /// The chain `pieces` (first operand, then operator and operand) as one expression.
    pub(super) fn chain(pieces: Vec<String>, level: u8, ty: Ty, typed: bool) -> Code {
        let text = pieces.join(" ");
        Code {
            text,
            level,
            ty,
            typed,
            chain: pieces,
        }
    }

    /// The pieces `self` contributes as the first operand of a chain of `level`.
    pub(super) fn leading_pieces(&self, level: u8) -> Vec<String> {
        if self.level == level && !self.chain.is_empty() {
            self.chain.clone()
        } else {
            vec![self.operand(level)]
        }
    }

    /// `prefix`, the expression and `suffix` on one line, or, when that is longer than
    /// `WIDTH` (92) and the expression is a chain, broken before each operator of the chain.
    pub fn wrapped(&self, prefix: &str, suffix: &str) -> String {
        let line = format!("{prefix}{}{suffix}", self.text);
        if line.len() <= WIDTH || self.chain.len() < 2 || self.text.contains('\n') {
            return line;
        }
        let mut text = format!("{prefix}{}", self.chain[0]);
        for piece in &self.chain[1..] {
            text.push_str("\n    ");
            text.push_str(piece);
        }
        text.push_str(suffix);
        text
    }

    /// The text, parenthesised unless its level is at least `min`.
    pub(super) fn at(&self, min: u8) -> String {
        if self.level < min {
            format!("({})", self.text)
        } else {
            self.text.clone()
        }
    }

    /// The text as an operand of a binary operator of level `min`: casts are parenthesised
    /// too (`(n as f64) * h`; `n as f64 < x` would not even parse).
    pub(super) fn operand(&self, min: u8) -> String {
        if self.level == level::CAST {
            format!("({})", self.text)
        } else {
            self.at(min)
        }
    }
}

/// The longest statement line written before breaking a chain of operations (a little under
/// 100, leaving room for the indentation of a block or two).
const WIDTH: usize = 92;

/// Statements followed by a final expression: the Rust form of an FPCore expression whose
/// `let`s and loops are written as statements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The statements, each possibly several lines.
    pub lines: Vec<String>,
    /// The value.
    pub tail: Code,
}

impl Block {
    /// The block as one expression: the tail alone when there are no statements, else `{ ... }`.
    pub fn into_code(self) -> Code {
        if self.lines.is_empty() {
            return self.tail;
        }
        let mut text = String::from("{\n");
        for line in &self.lines {
            text.push_str(&indent(line));
            text.push('\n');
        }
        text.push_str(&indent(&self.tail.wrapped("", "")));
        text.push_str("\n}");
        Code::new(text, level::BLOCK, self.tail.ty, self.tail.typed)
    }
}

/// `text` with every nonempty line indented by four spaces.
pub fn indent(text: &str) -> String {
    text.lines()
        .map(|line| {
            if line.is_empty() {
                String::new()
            } else {
                format!("    {line}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
