//! FPCore's `let`s and `while`s as Rust statements in a block with a final value.
//!
//! Each `let` becomes typed Rust `let`s (bound at once when its initial values read names it
//! rebinds), each `while` a Rust `while` loop with FPCore's simultaneous (`while`) or sequential
//! (`while*`) updates.

use std::collections::BTreeSet;
use std::mem;

use super::code::{indent, Block, Code};
use super::{comment, Binding, Gen, Res};
use crate::ast::{Constant, Expr, LoopVar};
use crate::precision::{Context, Ty};
use crate::Unsupported;

impl Gen<'_> {
    /// The statements and value of `e`, the value converted to `want` when given.
    pub(super) fn block(&mut self, e: &Expr, ctx: &Context, want: Option<Ty>, suffix: bool) -> Res<Block> {
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
}
