//! A hand-written lexer for Lolli, usable as an LALRPOP external lexer.
//!
//! `Lexer` is an iterator of `Result<(start, Token, end), LexError>` where
//! `start..end` is the token's byte range in the source.  It never panics
//! and never stops at an error: after a lexical error it resumes just after
//! the offending character (or, for an unterminated quote or string, at the
//! end of that line), so a caller can report every error in a file.
//!
//! Lexical rules (longest match everywhere):
//! - `%` starts a comment running to the end of the line, and `/*` one
//!   running to the next `*/` (not nested); an unclosed `/*` is an error
//!   at the `/*` ([`LexError::open_comment`]);
//! - identifiers are a letter or `_` followed by letters, digits and `_`;
//!   lower-case ones are names, others variables, a lone `_` the wildcard;
//!   `forall` `exists` `is` `MODULE` `LINEAR` `LOCAL` `MEMO` are keywords;
//! - `'quoted names'` (escapes `\'` `\\` `\n` `\t`, and `''` for a quote)
//!   and `"strings"` (escapes `\n` `\t` `\\` `\"`) may not contain a raw
//!   line break: an unclosed one is an error ending at the end of its line;
//! - a `.` ends a clause only when followed by white space, a comment or
//!   the end of input; any other `.` is an error;
//! - `-o` and `--o` are operators only when the `o` is not followed by an
//!   identifier character (`-one` is `-` then `one`);
//! - a `-` written immediately before digits, where a term may start (that
//!   is, not right after a name, variable, number, string, `_`, `)` or `}`),
//!   is glued to them into a negative integer literal: `X is -1`, `f (-1)`;
//!   but `N-1` and `f -1` are subtractions;
//! - integers that do not fit in an `i64` are an error.

use super::ast::Span;
use super::token::Token;

/// A lexical error: where and what, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    /// The offending text.
    pub span: Span,
    /// What is wrong, for a learner.
    pub message: String,
    /// The error is a `/*` comment not closed before the end of the text
    /// (the REPL then reads more lines rather than report it).
    pub open_comment: bool,
}

/// One lexer result: a token with its byte range, or an error.
pub type Spanned = Result<(usize, Token, usize), LexError>;

/// The lexer: an iterator over the tokens of one source text.
pub struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    /// Whether the previous token ends a term (then `-1` is a subtraction).
    after_term: bool,
}

/// Whether `c` may continue a name or a variable: a Unicode letter or
/// digit, or `_`.
pub fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `c` starts an unquoted name: a Unicode letter that is not
/// upper-case (`a`, `é`, `日`).  An upper-case letter or `_` starts a
/// variable.  The printer quotes exactly the names this rule does not
/// cover (see `pretty::plain_name`).
pub fn is_name_start(c: char) -> bool {
    c.is_alphabetic() && !c.is_uppercase()
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`, past a byte order mark (U+FEFF, which
    /// editors on Windows put at the start of UTF-8 files); spans still
    /// count from the start of `src`.
    pub fn new(src: &'a str) -> Self {
        Lexer {
            src,
            pos: if src.starts_with('\u{feff}') {
                '\u{feff}'.len_utf8()
            } else {
                0
            },
            after_term: false,
        }
    }

    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn peek_at(&self, skip: usize) -> Option<char> {
        self.src[self.pos..].chars().nth(skip)
    }

    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    /// Skips white space and comments; an unclosed `/*` comment is an
    /// error (the rest of the text is skipped).
    fn skip_blank(&mut self) -> Result<(), LexError> {
        while let Some(c) = self.peek() {
            if c.is_whitespace() {
                self.pos += c.len_utf8();
            } else if c == '%' {
                match self.rest().find('\n') {
                    Some(i) => self.pos += i + 1,
                    None => self.pos = self.src.len(),
                }
            } else if self.rest().starts_with("/*") {
                let start = self.pos;
                match self.rest()[2..].find("*/") {
                    Some(i) => self.pos += 2 + i + 2,
                    None => {
                        self.pos = self.src.len();
                        let mut e = self.error(
                            start..start + 2,
                            "this `/*` comment is never closed: end it with `*/`",
                        );
                        e.open_comment = true;
                        return Err(e);
                    }
                }
            } else {
                break;
            }
        }
        Ok(())
    }

    fn error(&self, span: Span, message: impl Into<String>) -> LexError {
        LexError {
            span,
            message: message.into(),
            open_comment: false,
        }
    }

    fn ident(&mut self, start: usize) -> Token {
        while let Some(c) = self.peek() {
            if is_ident_char(c) {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
        let text = &self.src[start..self.pos];
        match text {
            "_" => Token::Wildcard,
            "forall" => Token::Forall,
            "exists" => Token::Exists,
            "is" => Token::Is,
            "MODULE" => Token::Module,
            "LINEAR" => Token::Linear,
            "LOCAL" => Token::Local,
            "MEMO" => Token::Memo,
            _ => {
                let first = text.chars().next().unwrap_or('a');
                if is_name_start(first) {
                    Token::Name(text.to_string())
                } else {
                    Token::Var(text.to_string())
                }
            }
        }
    }

    /// Digits starting at `self.pos`; `start` is where the literal began
    /// (at the `-` for a negative one).
    fn number(&mut self, start: usize, negative: bool) -> Spanned {
        let digits_start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_ascii_digit() {
                self.pos += 1;
            } else {
                break;
            }
        }
        let digits = &self.src[digits_start..self.pos];
        let parsed = if negative {
            format!("-{digits}").parse::<i64>()
        } else {
            digits.parse::<i64>()
        };
        match parsed {
            Ok(n) => Ok((start, Token::Int(n), self.pos)),
            Err(_) => Err(self.error(start..self.pos, "integer literal too large")),
        }
    }

    /// A quoted name or a string: `self.pos` is at the opening `quote`.
    fn quoted(&mut self, quote: char) -> Spanned {
        let start = self.pos;
        self.pos += 1;
        let what = if quote == '"' {
            "string"
        } else {
            "quoted name"
        };
        let mut text = String::new();
        let mut bad_escape: Option<LexError> = None;
        loop {
            let Some(c) = self.peek() else {
                return Err(self.error(
                    start..self.pos,
                    format!("unterminated {what}: the closing {quote} is missing"),
                ));
            };
            match c {
                '\n' | '\r' => {
                    return Err(self.error(
                        start..self.pos,
                        format!("unterminated {what}: the closing {quote} is missing on this line"),
                    ));
                }
                c if c == quote => {
                    if quote == '\'' && self.peek_at(1) == Some('\'') {
                        text.push('\'');
                        self.pos += 2;
                    } else {
                        self.pos += 1;
                        break;
                    }
                }
                '\\' => {
                    let esc = self.peek_at(1);
                    let resolved = match esc {
                        Some('n') => Some('\n'),
                        Some('t') => Some('\t'),
                        Some('\\') => Some('\\'),
                        Some(q) if q == quote => Some(q),
                        _ => None,
                    };
                    match (resolved, esc) {
                        (Some(r), _) => {
                            text.push(r);
                            self.pos += 2;
                        }
                        (None, Some(e)) if e != '\n' && e != '\r' => {
                            let end = self.pos + 1 + e.len_utf8();
                            if bad_escape.is_none() {
                                bad_escape = Some(self.error(
                                    self.pos..end,
                                    format!("unknown escape `\\{e}` in a {what}"),
                                ));
                            }
                            self.pos = end;
                        }
                        (None, _) => {
                            // A backslash at the end of the line or input:
                            // the loop reports the missing quote next.
                            self.pos += 1;
                        }
                    }
                }
                c => {
                    text.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
        if let Some(e) = bad_escape {
            return Err(e);
        }
        let tok = if quote == '"' {
            Token::Str(text)
        } else {
            Token::Name(text)
        };
        Ok((start, tok, self.pos))
    }

    /// The token starting at `self.pos` (not blank, not at the end).
    fn token(&mut self, c: char) -> Spanned {
        use Token::*;
        let start = self.pos;
        if c.is_alphabetic() || c == '_' {
            let t = self.ident(start);
            return Ok((start, t, self.pos));
        }
        if c.is_ascii_digit() {
            return self.number(start, false);
        }
        if c == '\'' || c == '"' {
            return self.quoted(c);
        }
        let next = self.peek_at(1);
        let after_o = |s: &Self, n: usize| !s.peek_at(n).is_some_and(is_ident_char);
        let (tok, len) = match c {
            '(' => (LParen, 1),
            ')' => (RParen, 1),
            '{' => (LBrace, 1),
            '}' => (RBrace, 1),
            '\\' => (Backslash, 1),
            ';' => (Semi, 1),
            '&' => (Amp, 1),
            ',' => (Comma, 1),
            '|' => (Bar, 1),
            '+' => (Plus, 1),
            '*' => (Star, 1),
            '/' => (Slash, 1),
            '.' => match next {
                None => (End, 1),
                Some(n) if n.is_whitespace() || n == '%' => (End, 1),
                Some('/') if self.peek_at(2) == Some('*') => (End, 1),
                Some(n) => {
                    // `1.5`: a decimal, which Lolli does not have.
                    let decimal = n.is_ascii_digit()
                        && self.src[..self.pos]
                            .chars()
                            .next_back()
                            .is_some_and(|p| p.is_ascii_digit());
                    self.pos += 1;
                    return Err(self.error(
                        start..start + 1,
                        if decimal {
                            "unexpected `.`: numbers are integers (there is no `1.5`); \
                             a clause ends with `.` followed by a space or a new line"
                        } else {
                            "unexpected `.`: a clause ends with `.` followed by a space or a new line"
                        },
                    ));
                }
            },
            ':' => match next {
                Some('-') => (Neck, 2),
                Some(':') => (Cons, 2),
                _ => {
                    self.pos += 1;
                    return Err(self.error(start..start + 1, "unexpected character `:`"));
                }
            },
            '<' => match next {
                Some('=') => (RevImp, 2),
                _ => (Lt, 1),
            },
            '>' => match next {
                Some('=') => (Ge, 2),
                _ => (Gt, 1),
            },
            '=' => {
                if self.rest().starts_with("=:=") {
                    (ArithEq, 3)
                } else if self.rest().starts_with("=\\=") {
                    (ArithNe, 3)
                } else {
                    match next {
                        Some('<') => (Le, 2),
                        Some('>') => (Imp, 2),
                        _ => (Eq, 1),
                    }
                }
            }
            '-' => {
                if self.rest().starts_with("-->") {
                    (Dcg, 3)
                } else if self.rest().starts_with("--o") && after_o(self, 3) {
                    (LongLolli, 3)
                } else if next == Some('>') {
                    (Arrow, 2)
                } else if next == Some('o') && after_o(self, 2) {
                    (Lolli, 2)
                } else if next.is_some_and(|d| d.is_ascii_digit()) && !self.after_term {
                    self.pos += 1;
                    return self.number(start, true);
                } else {
                    (Minus, 1)
                }
            }
            other => {
                self.pos += other.len_utf8();
                return Err(self.error(
                    start..self.pos,
                    format!("unexpected character `{}`", other.escape_debug()),
                ));
            }
        };
        self.pos += len;
        Ok((start, tok, self.pos))
    }
}

impl Iterator for Lexer<'_> {
    type Item = Spanned;

    fn next(&mut self) -> Option<Spanned> {
        if let Err(e) = self.skip_blank() {
            self.after_term = false;
            return Some(Err(e));
        }
        let c = self.peek()?;
        let result = self.token(c);
        self.after_term = matches!(
            result,
            Ok((
                _,
                Token::Name(_)
                    | Token::Var(_)
                    | Token::Wildcard
                    | Token::Int(_)
                    | Token::Str(_)
                    | Token::RParen
                    | Token::RBrace,
                _
            ))
        );
        Some(result)
    }
}

/// Lexes all of `src`: the tokens and, separately, every lexical error.
pub fn tokenize(src: &str) -> (Vec<(usize, Token, usize)>, Vec<LexError>) {
    let mut tokens = Vec::new();
    let mut errors = Vec::new();
    for item in Lexer::new(src) {
        match item {
            Ok(t) => tokens.push(t),
            Err(e) => errors.push(e),
        }
    }
    (tokens, errors)
}
