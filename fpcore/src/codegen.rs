//! Generating Rust from FPCore expressions: each `let` a typed Rust `let`, each `while` a Rust
//! loop with FPCore's simultaneous (`while`) or sequential (`while*`) updates, each operation
//! the matching `f32`/`f64`/`i64` operator or method, with the fewest parentheses that keep
//! FPCore's evaluation order.

use std::collections::BTreeSet;
use std::mem;

use crate::ast::{Constant, Expr, LoopVar, Op};
use crate::names::Names;
use crate::number::Shape;
use crate::precision::{Context, Ty};
use crate::Unsupported;

type Res<T> = Result<T, Unsupported>;

/// Rust's operator precedence levels, loosest first.
mod level {
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
    level: u8,
    /// Its type.
    pub ty: Ty,
    /// Whether rustc knows its type without context (false for unsuffixed literals, whose type
    /// rustc infers, and which cannot receive a method call).
    typed: bool,
    /// For a chain of operations of one level (`a + b - c`, `p && q`): the first operand and
    /// then each operator with its operand, where a long line may break.
    chain: Vec<String>,
}

impl Code {
    fn new(text: String, level: u8, ty: Ty, typed: bool) -> Code {
        Code {
            text,
            level,
            ty,
            typed,
            chain: Vec::new(),
        }
    }

    /// The chain `pieces` (first operand, then operator and operand) as one expression.
    fn chain(pieces: Vec<String>, level: u8, ty: Ty, typed: bool) -> Code {
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
    fn leading_pieces(&self, level: u8) -> Vec<String> {
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
    fn at(&self, min: u8) -> String {
        if self.level < min {
            format!("({})", self.text)
        } else {
            self.text.clone()
        }
    }

    /// The text as an operand of a binary operator of level `min`: casts are parenthesised
    /// too (`(n as f64) * h`; `n as f64 < x` would not even parse).
    fn operand(&self, min: u8) -> String {
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

    /// The statements and value of `e`, the value converted to `want` when given.
    fn block(&mut self, e: &Expr, ctx: &Context, want: Option<Ty>, suffix: bool) -> Res<Block> {
        let outer_notes = mem::take(&mut self.notes);
        let depth = self.scope.len();
        let mut lines = Vec::new();
        let tail = self.block_into(e, ctx, want, suffix, &mut lines);
        self.scope.truncate(depth);
        let leftover = mem::replace(&mut self.notes, outer_notes);
        let tail = tail?;
        if lines.is_empty() {
            // A plain expression: its notes go with the statement that uses it.
            leftover.into_iter().for_each(|n| self.note(n));
        } else {
            lines.extend(leftover.iter().map(|n| comment(n)));
        }
        Ok(Block { lines, tail })
    }

    fn block_into(
        &mut self,
        e: &Expr,
        ctx: &Context,
        want: Option<Ty>,
        suffix: bool,
        lines: &mut Vec<String>,
    ) -> Res<Code> {
        let mut e = e;
        let mut ctx = ctx.clone();
        loop {
            match e {
                Expr::Let {
                    sequential,
                    bindings,
                    body,
                } => {
                    self.let_statements(*sequential, bindings, body, &ctx, lines)?;
                    e = body;
                }
                Expr::While {
                    sequential,
                    cond,
                    vars,
                    body,
                } => {
                    self.loop_statements(*sequential, cond, vars, body, &ctx, lines)?;
                    e = body;
                }
                Expr::Annotated { props, body } => {
                    ctx = ctx.with_props(props)?;
                    if let Some(note) = ctx.note() {
                        self.note(note);
                    }
                    e = body;
                }
                _ => break,
            }
        }
        let code = match e {
            Expr::If(..) => self.if_expr(e, &ctx, want, suffix)?,
            _ => self.expr(e, &ctx, suffix)?,
        };
        match want {
            Some(ty) if code.ty != ty => self.convert(e, &ctx, code, ty),
            _ => Ok(code),
        }
    }

    fn let_statements(
        &mut self,
        sequential: bool,
        bindings: &[(String, Expr)],
        body: &Expr,
        ctx: &Context,
        lines: &mut Vec<String>,
    ) -> Res<()> {
        for (i, (name, _)) in bindings.iter().enumerate() {
            let later: Vec<&Expr> = if sequential {
                bindings[i + 1..].iter().map(|(_, e)| e).collect()
            } else {
                Vec::new()
            };
            let shadowed = bindings[i + 1..].iter().any(|(n, _)| n == name);
            if !shadowed
                && !later
                    .iter()
                    .chain([&body])
                    .any(|e| e.free_vars().contains(name))
            {
                self.has_unread = true;
            }
        }
        let conflict = !sequential
            && bindings.iter().enumerate().any(|(j, (_, init))| {
                let free = init.free_vars();
                bindings[..j].iter().any(|(n, _)| free.contains(n))
            });
        let mut pending = Vec::new();
        let mut parts = Vec::new();
        for (name, init) in bindings {
            let code = self.expr(init, ctx, false)?;
            if code.ty == Ty::Bool && conflict {
                return Err(Unsupported(
                    "a boolean bound by a `let` whose bindings read each other".into(),
                ));
            }
            let rust = self.names.ident(name);
            let binding = Binding {
                symbol: name.clone(),
                rust: rust.clone(),
                ty: code.ty,
            };
            if conflict {
                parts.push((rust, code));
                pending.push(binding);
            } else {
                self.statement(
                    lines,
                    code.wrapped(&format!("let {rust}: {} = ", code.ty.rust()), ";"),
                );
                if sequential {
                    self.scope.push(binding);
                } else {
                    pending.push(binding);
                }
            }
        }
        if conflict {
            // Every initial value reads the outer names: bind them all at once.
            let names: Vec<&str> = parts.iter().map(|(n, _)| n.as_str()).collect();
            if names.iter().collect::<BTreeSet<_>>().len() < names.len() {
                return Err(Unsupported("a `let` binding one name twice".into()));
            }
            let tys: Vec<&str> = parts.iter().map(|(_, c)| c.ty.rust()).collect();
            let values: Vec<&str> = parts.iter().map(|(_, c)| c.text.as_str()).collect();
            let text = format!(
                "let ({}): ({}) = ({});",
                names.join(", "),
                tys.join(", "),
                values.join(", ")
            );
            self.statement(lines, text);
        }
        self.scope.extend(pending);
        Ok(())
    }

    fn loop_statements(
        &mut self,
        sequential: bool,
        cond: &Expr,
        vars: &[LoopVar],
        body: &Expr,
        ctx: &Context,
        lines: &mut Vec<String>,
    ) -> Res<()> {
        if matches!(cond, Expr::Const(Constant::True)) {
            return Err(Unsupported(
                "a loop whose condition is TRUE never ends".into(),
            ));
        }
        let fixed = |v: &LoopVar| matches!(&v.update, Expr::Var(n) if *n == v.name);
        for (i, var) in vars.iter().enumerate() {
            // Whether the initial value is read: by the condition, by the body (when the loop
            // does not run), by the updates that run before this variable's own (its own
            // included), and, for `while*`, by the later initial values.
            let readers: Vec<&Expr> = if sequential {
                let updates = vars[..=i].iter().map(|v| &v.update);
                let inits = vars[i + 1..].iter().map(|v| &v.init);
                [cond, body]
                    .into_iter()
                    .chain(updates)
                    .chain(inits)
                    .collect()
            } else {
                [cond, body]
                    .into_iter()
                    .chain(vars.iter().map(|v| &v.update))
                    .collect()
            };
            if !readers.iter().any(|e| e.free_vars().contains(&var.name)) {
                self.has_unread = true;
            }
        }

        // Initial values.
        let conflict = !sequential
            && vars.iter().enumerate().any(|(j, v)| {
                let free = v.init.free_vars();
                vars[..j].iter().any(|w| free.contains(&w.name))
            });
        let mut pending = Vec::new();
        let mut parts = Vec::new();
        for var in vars {
            let code = self.expr(&var.init, ctx, false)?;
            if !code.ty.is_numeric() {
                return Err(Unsupported(format!(
                    "the loop variable `{}` is a boolean",
                    var.name
                )));
            }
            let rust = self.names.ident(&var.name);
            let binding = Binding {
                symbol: var.name.clone(),
                rust: rust.clone(),
                ty: code.ty,
            };
            let mutable = if fixed(var) { "" } else { "mut " };
            if conflict {
                parts.push((format!("{mutable}{rust}"), code));
                pending.push(binding);
            } else {
                self.statement(
                    lines,
                    code.wrapped(&format!("let {mutable}{rust}: {} = ", code.ty.rust()), ";"),
                );
                if sequential {
                    self.scope.push(binding);
                } else {
                    pending.push(binding);
                }
            }
        }
        if conflict {
            let names: Vec<&str> = parts.iter().map(|(n, _)| n.as_str()).collect();
            let tys: Vec<&str> = parts.iter().map(|(_, c)| c.ty.rust()).collect();
            let values: Vec<&str> = parts.iter().map(|(_, c)| c.text.as_str()).collect();
            let text = format!(
                "let ({}): ({}) = ({});",
                names.join(", "),
                tys.join(", "),
                values.join(", ")
            );
            self.statement(lines, text);
        }
        self.scope.extend(pending);

        // One round of updates: in order for `while*`; for `while`, a variable that a later
        // update still reads gets its new value in a temporary until the round ends.
        let mut round = Vec::new();
        let mut deferred = Vec::new();
        for (i, var) in vars.iter().enumerate() {
            if fixed(var) {
                continue;
            }
            let binding = self.lookup(&var.name)?.clone();
            let code = self.expr(&var.update, ctx, false)?;
            let code = self.convert(&var.update, ctx, code, binding.ty)?;
            let read_later = !sequential
                && vars[i + 1..]
                    .iter()
                    .any(|w| !fixed(w) && w.update.free_vars().contains(&var.name));
            if read_later {
                let temp = self.names.temporary(&format!("{}_next", binding.rust));
                self.statement(
                    &mut round,
                    code.wrapped(&format!("let {temp}: {} = ", binding.ty.rust()), ";"),
                );
                deferred.push((binding.rust, temp));
            } else {
                self.statement(
                    &mut round,
                    code.wrapped(&format!("{} = ", binding.rust), ";"),
                );
            }
        }
        for (var, temp) in deferred {
            round.push(format!("{var} = {temp};"));
        }

        let cond = self.expr(cond, ctx, false)?;
        if cond.ty != Ty::Bool {
            return Err(Unsupported("a loop condition that is not a boolean".into()));
        }
        let inner: Vec<String> = round.iter().map(|l| indent(l)).collect();
        self.statement(
            lines,
            format!("while {} {{\n{}\n}}", cond.text, inner.join("\n")),
        );
        Ok(())
    }

    /// The Rust expression of `e` in context `ctx`; `suffix` asks for literals with a type
    /// suffix (for places where rustc could not infer it).
    pub fn expr(&mut self, e: &Expr, ctx: &Context, suffix: bool) -> Res<Code> {
        match e {
            Expr::Num(n) => {
                if ctx.ty == Ty::I64 {
                    let v = n.as_integer().ok_or_else(|| {
                        Unsupported(format!("the non-integer {n} in an integer context"))
                    })?;
                    let text = if suffix {
                        format!("{v}_i64")
                    } else {
                        v.to_string()
                    };
                    let level = if v < 0 { level::UNARY } else { level::ATOM };
                    return Ok(Code::new(text, level, Ty::I64, suffix));
                }
                let float = ctx
                    .ty
                    .float()
                    .ok_or_else(|| Unsupported("a number where a boolean is expected".into()))?;
                let lit = n
                    .float_literal(float, suffix)
                    .map_err(|e| Unsupported(e.0))?;
                let level = match lit.shape {
                    Shape::Atom => level::ATOM,
                    Shape::Negated => level::UNARY,
                    Shape::Quotient => level::MUL,
                };
                Ok(Code::new(lit.text, level, ctx.ty, suffix))
            }
            Expr::Const(c) => self.constant(*c, ctx),
            Expr::Var(symbol) => {
                let b = self.lookup(symbol)?;
                Ok(Code::new(b.rust.clone(), level::ATOM, b.ty, true))
            }
            Expr::Op(op, args) => self.operation(*op, args, ctx, suffix),
            Expr::If(..) => self.if_expr(e, ctx, None, suffix),
            Expr::Let { .. } | Expr::While { .. } => {
                Ok(self.block(e, ctx, None, suffix)?.into_code())
            }
            Expr::Cast(inner) => {
                let code = self.expr(inner, ctx, false)?;
                self.convert(inner, ctx, code, ctx.ty)
            }
            Expr::Annotated { props, body } => {
                let inner = ctx.with_props(props)?;
                if let Some(note) = inner.note() {
                    self.note(note);
                }
                self.expr(body, &inner, suffix)
            }
            Expr::Tensor(form) => Err(Unsupported(format!("tensors (`{form}`) are not supported"))),
            Expr::Call(name, _) => Err(Unsupported(format!(
                "calls of other FPCores (`{name}`) are not supported"
            ))),
        }
    }

    fn constant(&mut self, c: Constant, ctx: &Context) -> Res<Code> {
        let text = match c {
            Constant::True => return Ok(Code::new("true".into(), level::ATOM, Ty::Bool, true)),
            Constant::False => return Ok(Code::new("false".into(), level::ATOM, Ty::Bool, true)),
            _ if ctx.ty == Ty::I64 => {
                return Err(Unsupported(format!(
                    "the constant {c:?} in an integer context"
                )))
            }
            Constant::Infinity => format!("{}::INFINITY", ctx.ty.rust()),
            Constant::Nan => format!("{}::NAN", ctx.ty.rust()),
            _ => {
                let name = c
                    .std_name()
                    .ok_or_else(|| Unsupported(format!("the constant {c:?}")))?;
                if ctx.ty == Ty::F64 {
                    self.consts.insert(name);
                    name.to_string()
                } else {
                    format!("std::f32::consts::{name}")
                }
            }
        };
        Ok(Code::new(text, level::ATOM, ctx.ty, true))
    }

    /// The type `e` has in context `ctx`, without generating it.
    fn ty_of(&mut self, e: &Expr, ctx: &Context) -> Res<Ty> {
        Ok(match e {
            Expr::Num(_) | Expr::Cast(_) => ctx.ty,
            Expr::Const(Constant::True | Constant::False) => Ty::Bool,
            Expr::Const(_) => ctx.ty,
            Expr::Var(symbol) => self.lookup(symbol)?.ty,
            Expr::Op(op, _) => {
                if op.is_boolean() {
                    Ty::Bool
                } else {
                    ctx.ty
                }
            }
            Expr::If(_, then, other) => {
                let a = self.ty_of(then, ctx)?;
                let b = self.ty_of(other, ctx)?;
                join(a, b, ctx)?
            }
            Expr::Let {
                sequential,
                bindings,
                body,
            } => {
                let depth = self.scope.len();
                let mut pending = Vec::new();
                for (name, init) in bindings {
                    let ty = self.ty_of(init, ctx);
                    let binding = Binding {
                        symbol: name.clone(),
                        rust: String::new(),
                        ty: ty.unwrap_or(Ty::F64),
                    };
                    if *sequential {
                        self.scope.push(binding);
                    } else {
                        pending.push(binding);
                    }
                }
                self.scope.extend(pending);
                let ty = self.ty_of(body, ctx);
                self.scope.truncate(depth);
                ty?
            }
            Expr::While {
                sequential,
                vars,
                body,
                ..
            } => {
                let depth = self.scope.len();
                let mut pending = Vec::new();
                for var in vars {
                    let ty = self.ty_of(&var.init, ctx);
                    let binding = Binding {
                        symbol: var.name.clone(),
                        rust: String::new(),
                        ty: ty.unwrap_or(Ty::F64),
                    };
                    if *sequential {
                        self.scope.push(binding);
                    } else {
                        pending.push(binding);
                    }
                }
                self.scope.extend(pending);
                let ty = self.ty_of(body, ctx);
                self.scope.truncate(depth);
                ty?
            }
            Expr::Annotated { props, body } => self.ty_of(body, &ctx.with_props(props)?)?,
            Expr::Tensor(form) => {
                return Err(Unsupported(format!("tensors (`{form}`) are not supported")))
            }
            Expr::Call(name, _) => {
                return Err(Unsupported(format!(
                    "calls of other FPCores (`{name}`) are not supported"
                )))
            }
        })
    }

    /// `code` (generated from `e` in `ctx`) converted to type `to`.
    fn convert(&mut self, e: &Expr, ctx: &Context, code: Code, to: Ty) -> Res<Code> {
        if code.ty == to {
            return Ok(code);
        }
        if code.ty == Ty::Bool || to == Ty::Bool {
            return Err(Unsupported(format!(
                "a {} where FPCore expects a {}",
                code.ty.rust(),
                to.rust()
            )));
        }
        let code = self.typed(e, ctx, code)?;
        let text = if to == Ty::I64 {
            // Rounding to an integer, as FPCore's integer precision does.
            format!("{}.round_ties_even() as i64", code.at(level::ATOM))
        } else {
            format!("{} as {}", code.at(level::UNARY), to.rust())
        };
        Ok(Code::new(text, level::CAST, to, true))
    }

    /// `code` again with its type spelled out, when rustc could not infer it.
    fn typed(&mut self, e: &Expr, ctx: &Context, code: Code) -> Res<Code> {
        if code.typed {
            Ok(code)
        } else {
            self.expr(e, ctx, true)
        }
    }

    /// `e` generated in `ctx` and converted to `to`.
    fn operand(&mut self, e: &Expr, ctx: &Context, to: Ty, suffix: bool) -> Res<Code> {
        let code = self.expr(e, ctx, suffix)?;
        if code.ty == Ty::F64 && to == Ty::F32 {
            self.note(
                "FPCore rounds the exact result to binary32 once; here the f64 operands are \
                 rounded to f32 first."
                    .to_string(),
            );
        }
        self.convert(e, ctx, code, to)
    }

    /// `e` as the receiver of a method call: converted to `to` and with a known type.
    fn receiver(&mut self, e: &Expr, ctx: &Context, to: Ty) -> Res<String> {
        let code = self.operand(e, ctx, to, false)?;
        Ok(self.typed(e, ctx, code)?.at(level::ATOM))
    }

    fn operation(&mut self, op: Op, args: &[Expr], ctx: &Context, suffix: bool) -> Res<Code> {
        if op.is_comparison() {
            return self.comparison(op, args, ctx);
        }
        match op {
            Op::And | Op::Or => {
                let mut parts = Vec::new();
                for arg in args {
                    let code = self.expr(arg, ctx, false)?;
                    if code.ty != Ty::Bool {
                        return Err(Unsupported(format!(
                            "a number as an operand of `{}`",
                            op.name()
                        )));
                    }
                    parts.push(code);
                }
                let (empty, joiner, level, min) = if op == Op::And {
                    ("true", "&&", level::AND, level::AND)
                } else {
                    ("false", "||", level::OR, level::CMP)
                };
                Ok(match parts.len() {
                    0 => Code::new(empty.into(), level::ATOM, Ty::Bool, true),
                    1 => parts.remove(0),
                    _ => {
                        let mut pieces = parts[0].leading_pieces(min);
                        for part in &parts[1..] {
                            let mut more = part.leading_pieces(min).into_iter();
                            pieces.push(format!("{joiner} {}", more.next().unwrap_or_default()));
                            pieces.extend(more);
                        }
                        Code::chain(pieces, level, Ty::Bool, true)
                    }
                })
            }
            Op::Not => {
                let code = self.expr(&args[0], ctx, false)?;
                if code.ty != Ty::Bool {
                    return Err(Unsupported("a number as the operand of `not`".into()));
                }
                Ok(Code::new(
                    format!("!{}", code.at(level::UNARY)),
                    level::UNARY,
                    Ty::Bool,
                    true,
                ))
            }
            Op::Isfinite | Op::Isinf | Op::Isnan | Op::Isnormal | Op::Signbit => {
                let ty = match self.ty_of(&args[0], ctx)? {
                    Ty::F32 => Ty::F32,
                    _ => Ty::F64,
                };
                let receiver = self.receiver(&args[0], ctx, ty)?;
                let method = match op {
                    Op::Isfinite => "is_finite",
                    Op::Isinf => "is_infinite",
                    Op::Isnan => "is_nan",
                    Op::Isnormal => "is_normal",
                    _ => "is_sign_negative",
                };
                Ok(Code::new(
                    format!("{receiver}.{method}()"),
                    level::ATOM,
                    Ty::Bool,
                    true,
                ))
            }
            _ if ctx.ty == Ty::I64 => self.integer_operation(op, args, ctx, suffix),
            _ => self.float_operation(op, args, ctx, suffix),
        }
    }

    fn arithmetic(
        &mut self,
        symbol: &str,
        level: u8,
        args: &[Expr],
        ctx: &Context,
        suffix: bool,
    ) -> Res<Code> {
        let left = self.operand(&args[0], ctx, ctx.ty, suffix)?;
        let right = self.operand(&args[1], ctx, ctx.ty, false)?;
        let mut right_text = right.operand(level + 1);
        if level == level::ADD && right.level == level::UNARY {
            // `a - (-b)` rather than `a - -b`.
            right_text = format!("({right_text})");
        }
        let mut pieces = left.leading_pieces(level);
        pieces.push(format!("{symbol} {right_text}"));
        Ok(Code::chain(
            pieces,
            level,
            ctx.ty,
            left.typed || right.typed,
        ))
    }

    fn negation(&mut self, arg: &Expr, ctx: &Context, suffix: bool) -> Res<Code> {
        let code = self.operand(arg, ctx, ctx.ty, suffix)?;
        Ok(Code::new(
            format!("-{}", code.at(level::ATOM)),
            level::UNARY,
            ctx.ty,
            code.typed,
        ))
    }

    fn method(&mut self, name: &str, args: &[Expr], ctx: &Context) -> Res<Code> {
        let receiver = self.receiver(&args[0], ctx, ctx.ty)?;
        let mut rest = Vec::new();
        for arg in &args[1..] {
            rest.push(self.operand(arg, ctx, ctx.ty, false)?.text);
        }
        Ok(Code::new(
            format!("{receiver}.{name}({})", rest.join(", ")),
            level::ATOM,
            ctx.ty,
            true,
        ))
    }

    fn integer_operation(
        &mut self,
        op: Op,
        args: &[Expr],
        ctx: &Context,
        suffix: bool,
    ) -> Res<Code> {
        for arg in args {
            if self.ty_of(arg, ctx)?.float().is_some() {
                return Err(Unsupported(format!(
                    "a floating-point operand of `{}` in an integer context",
                    op.name()
                )));
            }
        }
        match op {
            Op::Sub if args.len() == 1 => self.negation(&args[0], ctx, suffix),
            Op::Add => self.arithmetic("+", level::ADD, args, ctx, suffix),
            Op::Sub => self.arithmetic("-", level::ADD, args, ctx, suffix),
            Op::Mul => self.arithmetic("*", level::MUL, args, ctx, suffix),
            Op::Fabs => self.method("abs", args, ctx),
            Op::Fmax => self.method("max", args, ctx),
            Op::Fmin => self.method("min", args, ctx),
            _ => Err(Unsupported(format!(
                "`{}` in an integer context",
                op.name()
            ))),
        }
    }

    fn float_operation(&mut self, op: Op, args: &[Expr], ctx: &Context, suffix: bool) -> Res<Code> {
        let method = match op {
            Op::Sub if args.len() == 1 => return self.negation(&args[0], ctx, suffix),
            Op::Add => return self.arithmetic("+", level::ADD, args, ctx, suffix),
            Op::Sub => return self.arithmetic("-", level::ADD, args, ctx, suffix),
            Op::Mul => return self.arithmetic("*", level::MUL, args, ctx, suffix),
            Op::Div => return self.arithmetic("/", level::MUL, args, ctx, suffix),
            // Rust's `%` on floats is C's fmod.
            Op::Fmod => return self.arithmetic("%", level::MUL, args, ctx, suffix),
            Op::Erf | Op::Erfc | Op::Tgamma | Op::Lgamma => {
                return Err(Unsupported(format!(
                    "`{}`, which Rust's std lacks",
                    op.name()
                )))
            }
            Op::Remainder => {
                return Err(Unsupported(
                    "`remainder` (IEEE remainder), which Rust's std lacks".into(),
                ))
            }
            Op::Fdim => return Err(Unsupported("`fdim`, which Rust's std lacks".into())),
            Op::Fabs => "abs",
            Op::Fma => "mul_add",
            Op::Exp => "exp",
            Op::Exp2 => "exp2",
            Op::Expm1 => "exp_m1",
            Op::Log => "ln",
            Op::Log10 => "log10",
            Op::Log2 => "log2",
            Op::Log1p => "ln_1p",
            Op::Pow => "powf",
            Op::Sqrt => "sqrt",
            Op::Cbrt => "cbrt",
            Op::Hypot => "hypot",
            Op::Sin => "sin",
            Op::Cos => "cos",
            Op::Tan => "tan",
            Op::Asin => "asin",
            Op::Acos => "acos",
            Op::Atan => "atan",
            Op::Atan2 => "atan2",
            Op::Sinh => "sinh",
            Op::Cosh => "cosh",
            Op::Tanh => "tanh",
            Op::Asinh => "asinh",
            Op::Acosh => "acosh",
            Op::Atanh => "atanh",
            Op::Ceil => "ceil",
            Op::Floor => "floor",
            Op::Fmax => "max",
            Op::Fmin => "min",
            Op::Copysign => "copysign",
            Op::Trunc => "trunc",
            // C's round: halfway cases away from zero, like Rust's.
            Op::Round => "round",
            // nearbyint in the default rounding mode: ties to even.
            Op::Nearbyint => "round_ties_even",
            _ => return Err(Unsupported(format!("the operation `{}`", op.name()))),
        };
        self.method(method, args, ctx)
    }

    fn comparison(&mut self, op: Op, args: &[Expr], ctx: &Context) -> Res<Code> {
        let mut tys = Vec::new();
        for arg in args {
            tys.push(self.ty_of(arg, ctx)?);
        }
        let literal = |e: &Expr| matches!(e, Expr::Num(_));
        let integral = |e: &Expr| matches!(e, Expr::Num(n) if n.as_integer().is_some());
        let others: Vec<Ty> = args
            .iter()
            .zip(&tys)
            .filter(|(a, _)| !literal(a))
            .map(|(_, t)| *t)
            .collect();
        let common = if tys.iter().all(|t| *t == Ty::Bool) && matches!(op, Op::Eq | Op::Ne) {
            Ty::Bool
        } else if tys.contains(&Ty::Bool) {
            return Err(Unsupported(format!(
                "a boolean compared with `{}`",
                op.name()
            )));
        } else if !others.is_empty()
            && others.iter().all(|t| *t == Ty::I64)
            && args.iter().all(|a| !literal(a) || integral(a))
        {
            // `n >= 0` for an integer n, not `(n as f64) >= 0.0`.
            Ty::I64
        } else if tys.iter().any(|t| matches!(t, Ty::F64 | Ty::I64)) {
            Ty::F64
        } else {
            Ty::F32
        };
        let integer = Context {
            ty: Ty::I64,
            substituted: None,
        };
        let mut codes = Vec::new();
        for (i, arg) in args.iter().enumerate() {
            let suffix = i == 0 && args.iter().all(literal);
            let code = if common == Ty::I64 && literal(arg) {
                self.expr(arg, &integer, suffix)?
            } else {
                self.operand(arg, ctx, common, suffix)?
            };
            codes.push(code);
        }
        let symbol = match op {
            Op::Lt => "<",
            Op::Gt => ">",
            Op::Le => "<=",
            Op::Ge => ">=",
            Op::Eq => "==",
            _ => "!=",
        };
        let pairs: Vec<(usize, usize)> = if op == Op::Ne {
            // Pairwise distinct; pairs of two literals are decided here.
            let mut pairs = Vec::new();
            for i in 0..args.len() {
                for j in i + 1..args.len() {
                    if let (Expr::Num(a), Expr::Num(b)) = (&args[i], &args[j]) {
                        if a.to_f64() != b.to_f64() {
                            continue;
                        }
                    }
                    pairs.push((i, j));
                }
            }
            pairs
        } else {
            (1..args.len()).map(|i| (i - 1, i)).collect()
        };
        let parts: Vec<String> = pairs
            .iter()
            .map(|&(i, j)| {
                format!(
                    "{} {symbol} {}",
                    codes[i].operand(level::ADD),
                    codes[j].operand(level::ADD)
                )
            })
            .collect();
        Ok(match parts.len() {
            0 => Code::new("true".into(), level::ATOM, Ty::Bool, true),
            1 => Code::new(parts[0].clone(), level::CMP, Ty::Bool, true),
            // One piece: a broken line keeps `0.0 <= x && x <= 1.0` together.
            _ => Code::new(parts.join(" && "), level::AND, Ty::Bool, true),
        })
    }

    /// An `if` chain (`else if` for conditionals in else position).
    fn if_expr(&mut self, e: &Expr, ctx: &Context, want: Option<Ty>, suffix: bool) -> Res<Code> {
        let mut arms: Vec<(Option<&Expr>, &Expr)> = Vec::new();
        let mut rest = e;
        while let Expr::If(cond, then, other) = rest {
            arms.push((Some(cond), then));
            rest = other;
        }
        arms.push((None, rest));
        let ty = match want {
            Some(ty) => ty,
            None => {
                let mut ty = self.ty_of(arms[0].1, ctx)?;
                for (_, branch) in &arms[1..] {
                    let other = self.ty_of(branch, ctx)?;
                    ty = join(ty, other, ctx)?;
                }
                ty
            }
        };
        let mut rendered = Vec::new();
        let mut typed = false;
        for (cond, branch) in &arms {
            let cond = match cond {
                Some(c) => {
                    let code = self.expr(c, ctx, false)?;
                    if code.ty != Ty::Bool {
                        return Err(Unsupported(
                            "an `if` condition that is not a boolean".into(),
                        ));
                    }
                    Some(code.text)
                }
                None => None,
            };
            let block = self.block(branch, ctx, Some(ty), suffix)?;
            typed |= block.tail.typed;
            rendered.push((cond, block));
        }
        let simple = rendered.len() == 2
            && rendered.iter().all(|(c, b)| {
                b.lines.is_empty()
                    && !b.tail.text.contains('\n')
                    && c.as_ref().is_none_or(|c| !c.contains('\n'))
            });
        let text = if simple {
            let cond = rendered[0].0.clone().unwrap_or_default();
            let line = format!(
                "if {cond} {{ {} }} else {{ {} }}",
                rendered[0].1.tail.text, rendered[1].1.tail.text
            );
            if line.len() <= 80 {
                Some(line)
            } else {
                None
            }
        } else {
            None
        };
        let text = text.unwrap_or_else(|| {
            let mut text = String::new();
            for (i, (cond, block)) in rendered.iter().enumerate() {
                match (i, cond) {
                    (0, Some(c)) => text.push_str(&format!("if {c} {{\n")),
                    (_, Some(c)) => text.push_str(&format!(" else if {c} {{\n")),
                    (_, None) => text.push_str(" else {\n"),
                }
                for line in &block.lines {
                    text.push_str(&indent(line));
                    text.push('\n');
                }
                text.push_str(&indent(&block.tail.wrapped("", "")));
                text.push_str("\n}");
            }
            text
        });
        Ok(Code::new(text, level::BLOCK, ty, typed))
    }
}

/// The type of a value that is `a` on one path and `b` on another.
fn join(a: Ty, b: Ty, ctx: &Context) -> Res<Ty> {
    if a == b {
        Ok(a)
    } else if a.is_numeric() && b.is_numeric() {
        Ok(ctx.ty)
    } else {
        Err(Unsupported(
            "an `if` whose branches are a number and a boolean".into(),
        ))
    }
}

fn comment(note: &str) -> String {
    format!("// {note}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_expr;
    use crate::sexp::read_all;

    /// The body generated for `fpcore` with float arguments `args` in context `ctx`.
    fn generate_in(
        fpcore: &str,
        args: &[(&str, Ty)],
        ctx: &Context,
    ) -> Result<String, Unsupported> {
        let e = parse_expr(&read_all(fpcore).expect("readable")[0]).expect("an expression");
        let mut names = Names::new(&[]);
        let mut gen = Gen::new(&mut names);
        for (name, ty) in args {
            gen.bind(name, *ty);
        }
        let block = gen.function_body(&e, ctx)?;
        let mut lines = block.lines;
        lines.push(block.tail.text);
        Ok(lines.join("\n"))
    }

    fn generate(fpcore: &str, args: &[&str]) -> String {
        let args: Vec<(&str, Ty)> = args.iter().map(|a| (*a, Ty::F64)).collect();
        generate_in(fpcore, &args, &Context::binary64()).expect("supported")
    }

    fn binary32() -> Context {
        Context {
            ty: Ty::F32,
            substituted: None,
        }
    }

    #[test]
    fn arithmetic_keeps_fpcore_order_with_the_fewest_parentheses() {
        assert_eq!(generate("(+ (+ a b) c)", &["a", "b", "c"]), "a + b + c");
        assert_eq!(generate("(+ a (+ b c))", &["a", "b", "c"]), "a + (b + c)");
        assert_eq!(generate("(- a (- b c))", &["a", "b", "c"]), "a - (b - c)");
        assert_eq!(generate("(* (+ a b) c)", &["a", "b", "c"]), "(a + b) * c");
        assert_eq!(
            generate("(/ (* a b) (* c a))", &["a", "b", "c"]),
            "a * b / (c * a)"
        );
        assert_eq!(generate("(* (- a) b)", &["a", "b"]), "-a * b");
        assert_eq!(generate("(- (* a b))", &["a", "b"]), "-(a * b)");
        assert_eq!(generate("(- a -1)", &["a"]), "a - (-1.0)");
    }

    #[test]
    fn a_long_chain_breaks_before_its_operators() {
        let terms: Vec<String> = (0..9).map(|i| format!("(* x{i} y{i})")).collect();
        let sum = terms
            .iter()
            .skip(1)
            .fold(terms[0].clone(), |acc, t| format!("(+ {acc} {t})"));
        let args: Vec<String> = (0..9)
            .flat_map(|i| [format!("x{i}"), format!("y{i}")])
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let code = generate(&format!("(let ([s {sum}]) s)"), &args);
        let expected = "\
let s: f64 = x0 * y0
    + x1 * y1
    + x2 * y2
    + x3 * y3
    + x4 * y4
    + x5 * y5
    + x6 * y6
    + x7 * y7
    + x8 * y8;
s";
        assert_eq!(code, expected);
    }

    #[test]
    fn math_functions_are_float_methods() {
        assert_eq!(generate("(sqrt (+ x 1))", &["x"]), "(x + 1.0).sqrt()");
        assert_eq!(generate("(log (exp x))", &["x"]), "x.exp().ln()");
        assert_eq!(generate("(pow x 3)", &["x"]), "x.powf(3.0)");
        assert_eq!(generate("(atan2 y x)", &["x", "y"]), "y.atan2(x)");
        assert_eq!(generate("(fma a b c)", &["a", "b", "c"]), "a.mul_add(b, c)");
        assert_eq!(generate("(fmax (fabs x) 0)", &["x"]), "x.abs().max(0.0)");
        assert_eq!(generate("(- (sqrt x))", &["x"]), "-x.sqrt()");
        assert_eq!(generate("(fmod x 2)", &["x"]), "x % 2.0");
    }

    #[test]
    fn a_literal_receiving_a_method_call_gets_a_type_suffix() {
        assert_eq!(generate("(sqrt 2)", &[]), "2.0_f64.sqrt()");
        assert_eq!(generate("(acos -1.0)", &[]), "(-1.0_f64).acos()");
        assert_eq!(generate("(sqrt (+ 1 2))", &[]), "(1.0_f64 + 2.0).sqrt()");
        assert_eq!(
            generate("(pow (/ 1 3) x)", &["x"]),
            "(1.0_f64 / 3.0).powf(x)"
        );
    }

    #[test]
    fn constants_come_from_std_consts() {
        assert_eq!(generate("(* 2 PI)", &[]), "2.0 * PI");
        let f32_pi = generate_in("(* 2 PI)", &[], &binary32()).expect("supported");
        assert_eq!(f32_pi, "2.0 * std::f32::consts::PI");
        assert_eq!(generate("(- INFINITY)", &[]), "-f64::INFINITY");
    }

    #[test]
    fn lets_become_typed_rust_lets() {
        let code = generate("(let* ([a (* x x)] [b (+ a 1)]) (/ a b))", &["x"]);
        assert_eq!(code, "let a: f64 = x * x;\nlet b: f64 = a + 1.0;\na / b");
        let code = generate_in("(let ([t (* x 2)]) t)", &[("x", Ty::F32)], &binary32())
            .expect("supported");
        assert_eq!(code, "let t: f32 = x * 2.0;\nt");
    }

    #[test]
    fn a_let_whose_bindings_read_outer_names_it_rebinds_binds_them_at_once() {
        let code = generate("(let ([x y] [y x]) (- x y))", &["x", "y"]);
        assert_eq!(code, "let (x, y): (f64, f64) = (y, x);\nx - y");
    }

    #[test]
    fn a_let_in_an_operand_is_a_block_expression() {
        let code = generate("(+ 1 (let ([a (* x x)]) (sqrt a)))", &["x"]);
        assert_eq!(code, "1.0 + ({\n    let a: f64 = x * x;\n    a.sqrt()\n})");
    }

    #[test]
    fn while_updates_are_simultaneous() {
        // Fibonacci-like: b's update must read the old a.
        let code = generate(
            "(while (< i 10) ([a 0 b] [b 1 (+ a b)] [i 0 (+ i 1)]) a)",
            &[],
        );
        let expected = "\
let mut a: f64 = 0.0;
let mut b: f64 = 1.0;
let mut i: f64 = 0.0;
while i < 10.0 {
    let a_next: f64 = b;
    b = a + b;
    i = i + 1.0;
    a = a_next;
}
a";
        assert_eq!(code, expected);
    }

    #[test]
    fn while_star_updates_are_sequential() {
        let code = generate(
            "(while* (< i 10) ([a 0 b] [b 1 (+ a b)] [i 0 (+ i 1)]) a)",
            &[],
        );
        let expected = "\
let mut a: f64 = 0.0;
let mut b: f64 = 1.0;
let mut i: f64 = 0.0;
while i < 10.0 {
    a = b;
    b = a + b;
    i = i + 1.0;
}
a";
        assert_eq!(code, expected);
    }

    #[test]
    fn while_initial_values_that_read_rebound_names_are_bound_at_once() {
        let code = generate("(while (< x y) ([x y (+ x 1)] [y x y]) x)", &["x", "y"]);
        assert!(
            code.starts_with("let (mut x, y): (f64, f64) = (y, x);\nwhile x < y {"),
            "{code}"
        );
    }

    #[test]
    fn a_loop_that_never_ends_is_refused() {
        let err = generate_in("(while TRUE ([x 0 (+ x 1)]) x)", &[], &Context::binary64())
            .expect_err("refused");
        assert!(err.0.contains("never ends"), "{err}");
    }

    #[test]
    fn integer_loop_counters_and_mixed_precision_follow_the_annotations() {
        let fpcore = "(while* (<= i n) ([s 0 (+ s (* i h))] [i (! :precision integer 1) (! :precision integer (+ i 1))]) s)";
        let code = generate_in(
            fpcore,
            &[("n", Ty::I64), ("h", Ty::F64)],
            &Context::binary64(),
        )
        .expect("supported");
        let expected = "\
let mut s: f64 = 0.0;
let mut i: i64 = 1;
while i <= n {
    s = s + (i as f64) * h;
    i = i + 1;
}
s";
        assert_eq!(code, expected);
    }

    #[test]
    fn casts_and_binary80_contexts_are_explicit() {
        let code = generate_in(
            "(cast (! :precision binary64 (/ t (! :precision binary32 (+ t 1)))))",
            &[("t", Ty::F32)],
            &binary32(),
        )
        .expect("supported");
        assert_eq!(code, "((t as f64) / ((t + 1.0) as f64)) as f32");
        let code = generate("(! :precision binary80 (+ a b))", &["a", "b"]);
        assert!(
            code.starts_with("// FPCore asks for binary80 here"),
            "{code}"
        );
        assert!(code.ends_with("\na + b"), "{code}");
    }

    #[test]
    fn narrowing_an_operand_is_noted() {
        let code = generate("(! :precision binary32 (+ a b))", &["a", "b"]);
        assert_eq!(code, "// FPCore rounds the exact result to binary32 once; here the f64 operands are rounded to f32 first.\n(a as f32) + (b as f32)");
    }

    #[test]
    fn conditionals_chain_with_else_if() {
        assert_eq!(
            generate("(if (< x 0) (- x) x)", &["x"]),
            "if x < 0.0 { -x } else { x }"
        );
        let code = generate("(if (< v -1) -1 (if (< 1 v) 1 v))", &["v"]);
        assert_eq!(
            code,
            "if v < -1.0 {\n    -1.0\n} else if 1.0 < v {\n    1.0\n} else {\n    v\n}"
        );
    }

    #[test]
    fn comparison_chains_and_distinctness_expand_to_conjunctions() {
        assert_eq!(generate("(< 0 x 1)", &["x"]), "0.0 < x && x < 1.0");
        assert_eq!(
            generate("(!= x 0 1 -1)", &["x"]),
            "x != 0.0 && x != 1.0 && x != -1.0"
        );
        assert_eq!(
            generate("(or (> x 1) (and (< x 0) (!= x -1)))", &["x"]),
            "x > 1.0 || (x < 0.0 && x != -1.0)"
        );
        assert_eq!(generate("(not (isnan x))", &["x"]), "!x.is_nan()");
        let code =
            generate_in("(>= n 0)", &[("n", Ty::I64)], &Context::binary64()).expect("supported");
        assert_eq!(code, "n >= 0");
    }

    #[test]
    fn functions_rust_lacks_are_reported() {
        let err = generate_in("(erf x)", &[("x", Ty::F64)], &Context::binary64())
            .expect_err("unsupported");
        assert!(err.0.contains("erf"), "{err}");
        let err = generate_in("(array x x)", &[("x", Ty::F64)], &Context::binary64())
            .expect_err("unsupported");
        assert!(err.0.contains("tensors"), "{err}");
    }

    fn has_unread(fpcore: &str) -> bool {
        let e = parse_expr(&read_all(fpcore).expect("readable")[0]).expect("an expression");
        let mut names = Names::new(&[]);
        let mut gen = Gen::new(&mut names);
        gen.function_body(&e, &Context::binary64())
            .expect("supported");
        gen.has_unread
    }

    #[test]
    fn unread_bindings_and_overwritten_initial_values_are_noticed() {
        assert!(has_unread("(let ([a 1] [b 2]) a)"));
        assert!(!has_unread("(let* ([a 1] [b a]) b)"));
        // d's first value is overwritten before anything reads it.
        assert!(has_unread(
            "(while* (< i 3) ([d 0 (* i 2)] [s 0 (+ s d)] [i 0 (+ i 1)]) s)"
        ));
        // In a `while`, every update reads the previous round's values.
        assert!(!has_unread(
            "(while (< i 3) ([d 0 (* i 2)] [s 0 (+ s d)] [i 0 (+ i 1)]) s)"
        ));
        assert!(!has_unread(
            "(while* (< i 3) ([s 0 (+ s d)] [d 0 (* i 2)] [i 0 (+ i 1)]) s)"
        ));
    }
}
