//! FPCore's `if` as a Rust `if` chain.
//!
//! Conditionals in else position become `else if`; a short two-armed `if` stays on one line.

use super::code::{indent, level, Code};
use super::types::join;
use super::{Gen, Res};
use crate::ast::Expr;
use crate::precision::{Context, Ty};
use crate::Unsupported;

impl Gen<'_> {
    /// An `if` chain (`else if` for conditionals in else position).
    pub(super) fn if_expr(&mut self, e: &Expr, ctx: &Context, want: Option<Ty>, suffix: bool) -> Res<Code> {
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
