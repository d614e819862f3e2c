//! Reading S-expressions, the concrete syntax of FPCore files: atoms, strings, lists in `()` or
//! `[]`, `;` line comments and `#| |#` block comments, with positions for error messages.

use std::fmt;

/// Where a datum starts in its text: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    /// Line, counted from 1.
    pub line: usize,
    /// Column, counted from 1.
    pub col: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// One datum of an S-expression text.
#[derive(Clone, Debug, PartialEq)]
pub enum Sexp {
    /// A symbol or number, as written.
    Atom {
        /// The token's text.
        text: String,
        /// Where it starts.
        pos: Pos,
    },
    /// A string literal, its escapes resolved.
    Str {
        /// The string's contents.
        text: String,
        /// Where its opening quote is.
        pos: Pos,
    },
    /// A parenthesised or bracketed list.
    List {
        /// Its elements.
        items: Vec<Sexp>,
        /// Where its opening parenthesis is.
        pos: Pos,
        /// The byte range of the whole list in the source text, parentheses included.
        span: (usize, usize),
    },
}

impl Sexp {
    /// Where the datum starts.
    pub fn pos(&self) -> Pos {
        match self {
            Sexp::Atom { pos, .. } | Sexp::Str { pos, .. } | Sexp::List { pos, .. } => *pos,
        }
    }

    /// The atom's text, if this is an atom.
    pub fn atom(&self) -> Option<&str> {
        match self {
            Sexp::Atom { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The list's elements, if this is a list.
    pub fn list(&self) -> Option<&[Sexp]> {
        match self {
            Sexp::List { items, .. } => Some(items),
            _ => None,
        }
    }
}

/// Writes the datum back on one line, single spaces between elements.
impl fmt::Display for Sexp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sexp::Atom { text, .. } => f.write_str(text),
            Sexp::Str { text, .. } => write!(f, "{text:?}"),
            Sexp::List { items, .. } => {
                f.write_str("(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// A text that is not a well-formed sequence of S-expressions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// Where the problem was found.
    pub pos: Pos,
    /// What it is.
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pos, self.message)
    }
}

impl std::error::Error for ReadError {}

/// Reads every top-level datum of `text`.
pub fn read_all(text: &str) -> Result<Vec<Sexp>, ReadError> {
    let mut reader = Reader {
        text,
        offset: 0,
        line: 1,
        col: 1,
    };
    let mut data = Vec::new();
    loop {
        reader.skip_blank()?;
        match reader.peek() {
            None => return Ok(data),
            Some(')' | ']') => return Err(reader.error("a closing parenthesis with no list open")),
            Some(_) => data.push(reader.datum()?),
        }
    }
}

/// A cursor over the text, keeping the line and column of its offset.
struct Reader<'a> {
    text: &'a str,
    offset: usize,
    line: usize,
    col: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.offset..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.offset += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            col: self.col,
        }
    }

    fn error(&self, message: &str) -> ReadError {
        ReadError {
            pos: self.pos(),
            message: message.to_string(),
        }
    }

    /// Skips whitespace and comments.
    fn skip_blank(&mut self) -> Result<(), ReadError> {
        loop {
            match self.peek() {
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some(';') => {
                    while let Some(c) = self.bump() {
                        if c == '\n' {
                            break;
                        }
                    }
                }
                Some('#') if self.text[self.offset..].starts_with("#|") => {
                    let start = self.pos();
                    self.bump();
                    self.bump();
                    loop {
                        if self.text[self.offset..].starts_with("|#") {
                            self.bump();
                            self.bump();
                            break;
                        }
                        if self.bump().is_none() {
                            return Err(ReadError {
                                pos: start,
                                message: "a block comment `#|` that is never closed".to_string(),
                            });
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn datum(&mut self) -> Result<Sexp, ReadError> {
        let pos = self.pos();
        match self.peek() {
            Some(open @ ('(' | '[')) => self.list(open, pos),
            Some('"') => self.string(pos),
            Some(_) => {
                let start = self.offset;
                while let Some(c) = self.peek() {
                    if c.is_whitespace() || "()[]\";".contains(c) {
                        break;
                    }
                    self.bump();
                }
                Ok(Sexp::Atom {
                    text: self.text[start..self.offset].to_string(),
                    pos,
                })
            }
            None => Err(self.error("the text ends where a datum was expected")),
        }
    }

    fn list(&mut self, open: char, pos: Pos) -> Result<Sexp, ReadError> {
        let start = self.offset;
        let close = if open == '(' { ')' } else { ']' };
        self.bump();
        let mut items = Vec::new();
        loop {
            self.skip_blank()?;
            match self.peek() {
                None => {
                    return Err(ReadError {
                        pos,
                        message: format!("a list opened with `{open}` that is never closed"),
                    })
                }
                Some(c) if c == close => {
                    self.bump();
                    return Ok(Sexp::List {
                        items,
                        pos,
                        span: (start, self.offset),
                    });
                }
                Some(c @ (')' | ']')) => {
                    return Err(self.error(&format!(
                        "`{c}` closes a list opened with `{open}` at {pos}"
                    )))
                }
                Some(_) => items.push(self.datum()?),
            }
        }
    }

    fn string(&mut self, pos: Pos) -> Result<Sexp, ReadError> {
        self.bump();
        let mut text = String::new();
        loop {
            match self.bump() {
                None => {
                    return Err(ReadError {
                        pos,
                        message: "a string that is never closed".to_string(),
                    })
                }
                Some('"') => return Ok(Sexp::Str { text, pos }),
                Some('\\') => match self.bump() {
                    Some('n') => text.push('\n'),
                    Some('t') => text.push('\t'),
                    Some(c) => text.push(c),
                    None => {
                        return Err(ReadError {
                            pos,
                            message: "a string that is never closed".to_string(),
                        })
                    }
                },
                Some(c) => text.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atoms(sexp: &Sexp) -> Vec<String> {
        match sexp {
            Sexp::Atom { text, .. } => vec![text.clone()],
            Sexp::Str { text, .. } => vec![format!("{text:?}")],
            Sexp::List { items, .. } => items.iter().flat_map(atoms).collect(),
        }
    }

    #[test]
    fn lists_nest_with_parentheses_and_brackets() {
        let data = read_all("(let ([x 1] [y 2.5]) (+ x y))").expect("well formed");
        assert_eq!(data.len(), 1);
        assert_eq!(data[0].to_string(), "(let ((x 1) (y 2.5)) (+ x y))");
        assert_eq!(
            atoms(&data[0]),
            ["let", "x", "1", "y", "2.5", "+", "x", "y"]
        );
    }

    #[test]
    fn comments_are_skipped_and_strings_keep_their_escapes() {
        let text =
            ";; a comment\n(FPCore (x) ; trailing\n #| block\n comment |# :name \"a \\\"b\\\"\" x)";
        let data = read_all(text).expect("well formed");
        assert_eq!(
            atoms(&data[0]),
            ["FPCore", "x", ":name", "\"a \\\"b\\\"\"", "x"]
        );
    }

    #[test]
    fn a_semicolon_right_after_a_string_starts_a_comment() {
        let data = read_all("(:description \"Generated\";  \n 1)").expect("well formed");
        assert_eq!(data[0].to_string(), "(:description \"Generated\" 1)");
    }

    #[test]
    fn positions_count_lines_and_columns_from_one() {
        let data = read_all("\n  (a\n   (b))").expect("well formed");
        assert_eq!(data[0].pos(), Pos { line: 2, col: 3 });
        let inner = &data[0].list().expect("a list")[1];
        assert_eq!(inner.pos(), Pos { line: 3, col: 4 });
    }

    #[test]
    fn the_span_of_a_list_covers_its_source_text() {
        let text = "  (+ 1\n 2)  ";
        let data = read_all(text).expect("well formed");
        let Sexp::List { span, .. } = &data[0] else {
            panic!("a list")
        };
        assert_eq!(&text[span.0..span.1], "(+ 1\n 2)");
    }

    #[test]
    fn unbalanced_text_is_an_error_with_its_position() {
        let err = read_all("(+ 1 2").expect_err("never closed");
        assert_eq!(err.pos, Pos { line: 1, col: 1 });
        assert!(err.message.contains("never closed"), "{err}");
        let err = read_all("(+ 1 2])").expect_err("mismatched");
        assert!(
            err.message.contains("closes a list opened with `(`"),
            "{err}"
        );
        let err = read_all("x)").expect_err("stray");
        assert!(err.message.contains("no list open"), "{err}");
    }
}
