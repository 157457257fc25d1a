//! The syntax front end: source text in, `ast` items and terms out.
//!
//! Pipeline: `lexer` turns text into spanned `token`s; the LALRPOP grammar
//! (`grammar.lalrpop`) parses one item or one goal; this module splits a
//! program into items at each clause-ending `.`, so that one bad clause
//! costs one error and the other clauses are still parsed, and it turns
//! LALRPOP's errors into `SyntaxError`s worded for a learner.
//!
//! Invariants: nothing here panics on any input; every error carries a span
//! into the text that was given; at most one error is reported per item.

pub mod ast;
pub mod lexer;
pub mod token;
mod tree;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused)]
    grammar,
    "/syntax/grammar.rs"
);

pub use ast::*;

use lalrpop_util::ParseError;
use lexer::{LexError, Lexer};
use token::Token;

/// A syntax error: data, rendered elsewhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// The text the error is about (empty at the end of input).
    pub span: Span,
    /// What is wrong, in words a learner understands.
    pub message: String,
    /// What would have been accepted there, as a short worded list.
    pub expected: Option<String>,
    /// How Lolli writes what the text at `span` seems to mean, when it is
    /// a spelling from Prolog or λProlog (see `hint`).
    pub hint: Option<String>,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(e) = &self.expected {
            write!(f, " (expected {e})")?;
        }
        Ok(())
    }
}

impl std::error::Error for SyntaxError {}

impl From<LexError> for SyntaxError {
    fn from(e: LexError) -> Self {
        SyntaxError {
            span: e.span,
            message: e.message,
            expected: None,
            hint: None,
        }
    }
}

type Spanned = (usize, Token, usize);

/// Parses a program file: every item that parses, and every error (at most
/// one per bad item; a lexical error counts for its item).
pub fn parse_program(src: &str) -> (Vec<Item>, Vec<SyntaxError>) {
    let mut items = Vec::new();
    let mut errors = Vec::new();
    let parser = grammar::ItemParser::new();

    let mut chunk: Vec<Spanned> = Vec::new();
    let mut chunk_error: Option<LexError> = None;
    let mut lexer = Lexer::new(src);
    loop {
        let next = lexer.next();
        let at_end = next.is_none();
        let mut finished = at_end;
        match next {
            None => {}
            Some(Err(e)) => {
                chunk_error.get_or_insert(e);
            }
            Some(Ok(tok)) => {
                finished = tok.1 == Token::End;
                chunk.push(tok);
            }
        }
        if finished {
            if let Some(e) = chunk_error.take() {
                errors.push(e.into());
            } else if !chunk.is_empty() {
                match parse_item(&parser, &chunk, src) {
                    Ok(item) => items.push(item),
                    Err(e) => errors.push(e),
                }
            }
            chunk.clear();
        }
        if at_end {
            break;
        }
    }
    for e in &mut errors {
        e.hint = hint(src, &e.span);
    }
    (items, errors)
}

fn parse_item(
    parser: &grammar::ItemParser,
    chunk: &[Spanned],
    text: &str,
) -> Result<Item, SyntaxError> {
    if let [(l, Token::End, r)] = chunk {
        return Err(SyntaxError {
            span: *l..*r,
            message: "unexpected `.`: there is no clause before it".to_string(),
            expected: Some("a clause".to_string()),
            hint: None,
        });
    }
    parser
        .parse(chunk.iter().cloned().map(Ok))
        .map_err(|e| translate(e, chunk, text, Context::Item))
}

/// Parses one formula (a goal typed at the prompt); the final `.` is optional,
/// and nothing may follow it.  A leading `?-` is ignored, so a query copied
/// from a Lolli or Prolog transcript runs as written.
pub fn parse_goal(src: &str) -> Result<Term, SyntaxError> {
    parse_term_text(&without_prompt(src))
}

/// `src` with a leading `?-` (Lolli's and Prolog's query prompt, as copied
/// from a transcript) blanked out; offsets, and so spans, are unchanged.
fn without_prompt(src: &str) -> std::borrow::Cow<'_, str> {
    let body = src.trim_start();
    match body.strip_prefix("?-") {
        Some(_) => {
            let at = src.len() - body.len();
            let mut owned = src.to_string();
            owned.replace_range(at..at + 2, "  ");
            std::borrow::Cow::Owned(owned)
        }
        None => std::borrow::Cow::Borrowed(src),
    }
}

fn parse_term_text(src: &str) -> Result<Term, SyntaxError> {
    parse_tokens(src).map_err(|mut e| {
        e.hint = hint(src, &e.span);
        e
    })
}

fn parse_tokens(src: &str) -> Result<Term, SyntaxError> {
    let (tokens, errors) = lexer::tokenize(src);
    if let Some(e) = errors.into_iter().next() {
        return Err(e.into());
    }
    if tokens.is_empty() {
        return Err(SyntaxError {
            span: src.len()..src.len(),
            message: "there is nothing to read: expected a term".to_string(),
            expected: Some("a term".to_string()),
            hint: None,
        });
    }
    grammar::GoalParser::new()
        .parse(tokens.iter().cloned().map(Ok))
        .map_err(|e| translate(e, &tokens, src, Context::Goal))
}

/// Parses one term (used by `read`): the same as [`parse_goal`], without
/// the `?-` prompt.
pub fn parse_term(src: &str) -> Result<Term, SyntaxError> {
    parse_term_text(src)
}

/// For a REPL: true when no more input is needed, i.e. `src` has a
/// clause-ending `.` outside quotes, strings and comments (inside an open
/// `(` or `{` too: the parser ends the goal there, and reports the
/// unclosed bracket), or an error that more input cannot fix (a lexical
/// error, or a `)` / `}` that closes nothing).  False for input that is
/// only blank or comments.
pub fn is_complete(src: &str) -> bool {
    matches!(
        bracket_scan(&without_prompt(src), &mut 0),
        Completion::Complete
    )
}

/// How [`bracket_scan`] ended.
enum Completion {
    /// A clause-ending `.` (inside brackets, an error to report), or an
    /// error more input cannot fix.
    Complete,
    /// A `/*` comment still open at this offset.
    OpenComment(usize),
    /// The text ran out first.
    Open,
}

/// Lex `text` with `depth` brackets open before it, until it is complete
/// (as [`is_complete`] says) or runs out; `depth` is left as at the end.
fn bracket_scan(text: &str, depth: &mut usize) -> Completion {
    for item in Lexer::new(text) {
        match item {
            Err(e) if e.open_comment => return Completion::OpenComment(e.span.start),
            Err(_) => return Completion::Complete,
            Ok((_, Token::LParen | Token::LBrace, _)) => *depth += 1,
            Ok((_, Token::RParen | Token::RBrace, _)) => {
                if *depth == 0 {
                    return Completion::Complete;
                }
                *depth -= 1;
            }
            // Inside brackets too: the parser ends the goal at the first
            // `.` token, so the unclosed bracket is an error to report now.
            Ok((_, Token::End, _)) => return Completion::Complete,
            Ok(_) => {}
        }
    }
    Completion::Open
}

/// For `read`: the byte offset just after the `.` that ends the first term
/// of `src` (the first clause-ending `.` token: one followed by white
/// space, a comment or the end of the text, and not inside a quoted name,
/// a string or a comment), or `None` when `src` has none yet (more input
/// may complete it; an unclosed `/*` comment waits for more too).  The
/// text after the offset is where the next term starts.
pub fn term_end(src: &str) -> Option<usize> {
    term_end_resuming(src, &mut Resume::default())
}

/// Where lexing resumes in a text that grows at its end (a line, or a
/// piece of a very long line, at a time), so that looking for the end of
/// a term as `read` and the piped top level do costs each piece once, not
/// the whole text again for every line ([`term_end_resuming`],
/// [`is_complete_resuming`]).
///
/// Resuming is sound because no token but a `/*` comment spans a line
/// break (a quoted name or string may not; an unclosed one ends at the end
/// of its line), and whether a `.` ends a term depends only on the
/// character after it: lexing from a line start, or from the start of a
/// token, finds the same ends as lexing from the start of the text.  (The
/// lexer's one state, whether a `-` may start a negative number, changes
/// no `.`.)  Invariant: the text before `at` has no term-ending `.` (for
/// [`is_complete_resuming`], none outside brackets, and `depth` brackets
/// are open there).
#[derive(Clone, Debug, Default)]
pub struct Resume {
    /// Where lexing resumes: a line start, the start of the last token of
    /// a line not finished yet, or the `/*` of a comment still open.
    at: usize,
    /// With a comment open at `at`: the text up to this offset has no `*/`.
    comment: Option<usize>,
    /// Brackets open before `at` ([`is_complete_resuming`] only).
    depth: usize,
}

impl Resume {
    /// Where to lex `src` from, or `None` when nothing new can end a term:
    /// the text only grew inside a `/*` comment, with no `*/`.
    fn start(&mut self, src: &str) -> Option<usize> {
        if let Some(seen) = self.comment {
            let seen = seen.min(src.len());
            let split = src[..seen].ends_with('*') && src[seen..].starts_with('/');
            if !split && !src[seen..].contains("*/") {
                self.comment = Some(src.len());
                return None;
            }
            self.comment = None;
        }
        Some(self.at.min(src.len()))
    }

    /// Lexing from `from` found no end in `src`: `last` is where its last
    /// token (or error) started, `open` where a `/*` still open starts.
    fn stop(&mut self, src: &str, from: usize, last: Option<usize>, open: Option<usize>) {
        if let Some(at) = open {
            self.at = at;
            self.comment = Some(src.len());
        } else if src.ends_with('\n') {
            self.at = src.len();
        } else {
            self.at = last.unwrap_or(from);
        }
    }
}

/// [`term_end`] of a text that only grows at its end between calls (the
/// same `resume` each time; a fresh one for another text, or after the
/// text is cut at the end found): each call lexes only what the last one
/// could not settle.
pub fn term_end_resuming(src: &str, resume: &mut Resume) -> Option<usize> {
    let from = resume.start(src)?;
    let mut last = None;
    for item in Lexer::new(&src[from..]) {
        match item {
            Ok((_, Token::End, end)) => return Some(from + end),
            Ok((start, _, _)) => last = Some(from + start),
            Err(e) if e.open_comment => {
                resume.stop(src, from, last, Some(from + e.span.start));
                return None;
            }
            Err(e) => last = Some(from + e.span.start),
        }
    }
    resume.stop(src, from, last, None);
    None
}

/// [`is_complete`] of a text that only grows at its end, by whole lines
/// (as [`term_end_resuming`]; a text not ending with a line break is
/// checked whole, leaving `resume` as it was).
pub fn is_complete_resuming(src: &str, resume: &mut Resume) -> bool {
    if !src.ends_with('\n') {
        return is_complete(src);
    }
    let Some(from) = resume.start(src) else {
        return false;
    };
    // A prompt `?-` can only open the text (the top level drops blank
    // lines before a goal).
    let text = if from == 0 {
        without_prompt(src)
    } else {
        std::borrow::Cow::Borrowed(&src[from..])
    };
    let mut depth = resume.depth;
    let open = match bracket_scan(&text, &mut depth) {
        Completion::Complete => return true,
        Completion::OpenComment(at) => Some(from + at),
        Completion::Open => None,
    };
    resume.depth = depth;
    resume.stop(src, from, None, open);
    false
}

/// Whether `src` holds no token: only white space and closed comments.
pub fn is_blank(src: &str) -> bool {
    Lexer::new(src).next().is_none()
}

// ------------------------------------------------------------------ errors

#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    /// One program item, ending with `.`.
    Item,
    /// A goal, whose `.` is optional.
    Goal,
}

/// The bracket problem before token index `upto` (exclusive), if any:
/// an unmatched closer at `upto`, or the innermost opener still open.
enum Brackets {
    Balanced,
    /// The closer at this index has no opener.
    Unopened,
    /// The closer at `upto` closes the opener at this index, of the other kind.
    Mismatched(usize),
    /// The opener at this index is still open.
    Unclosed(usize),
}

fn brackets(tokens: &[Spanned], upto: usize) -> Brackets {
    let mut stack: Vec<usize> = Vec::new();
    for (i, (_, tok, _)) in tokens.iter().enumerate().take(upto + 1) {
        let closing = match tok {
            Token::LParen | Token::LBrace if i < upto => {
                stack.push(i);
                continue;
            }
            Token::RParen => Token::LParen,
            Token::RBrace => Token::LBrace,
            _ => continue,
        };
        match stack.pop() {
            None => {
                if i == upto {
                    return Brackets::Unopened;
                }
            }
            Some(open) if tokens.get(open).map(|t| &t.1) != Some(&closing) && i == upto => {
                return Brackets::Mismatched(open);
            }
            Some(_) => {}
        }
    }
    match stack.last() {
        Some(&open) => Brackets::Unclosed(open),
        None => Brackets::Balanced,
    }
}

fn bracket_word(tok: &Token) -> &'static str {
    match tok {
        Token::LBrace | Token::RBrace => "brace",
        _ => "parenthesis",
    }
}

fn translate(
    err: ParseError<usize, Token, LexError>,
    tokens: &[Spanned],
    text: &str,
    ctx: Context,
) -> SyntaxError {
    match err {
        ParseError::User { error } => error.into(),
        ParseError::InvalidToken { location } => SyntaxError {
            span: location..location,
            message: "invalid token".to_string(),
            expected: None,
            hint: None,
        },
        ParseError::ExtraToken { token: (l, tok, r) } => SyntaxError {
            span: l..r,
            message: format!("unexpected {} after the end of the clause", tok.describe()),
            expected: None,
            hint: None,
        },
        ParseError::UnrecognizedEof { location, expected } => {
            let words = compress(&expected);
            if let Brackets::Unclosed(open) = brackets(tokens, tokens.len()) {
                if let Some(e) = unclosed(tokens, open, words.clone()) {
                    return e;
                }
            }
            let message = if expected.iter().any(|e| e == "\".\"") && ctx == Context::Item {
                "expected `.` at the end of the clause".to_string()
            } else {
                match tokens.last() {
                    Some((_, prev, _)) => format!(
                        "unexpected end of input after {}: the clause is not finished",
                        prev.describe()
                    ),
                    None => "unexpected end of input: the clause is not finished".to_string(),
                }
            };
            SyntaxError {
                span: location..location,
                message,
                expected: words,
                hint: None,
            }
        }
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let words = compress(&expected);
            let index = tokens.iter().position(|t| t.0 == l).unwrap_or(tokens.len());
            let prev = index
                .checked_sub(1)
                .and_then(|i| tokens.get(i))
                .map(|t| &t.1);
            let span = l..r;
            if expected.is_empty() {
                return SyntaxError {
                    span,
                    message: format!(
                        "unexpected {} after the end `.` of the goal",
                        tok.describe()
                    ),
                    expected: None,
                    hint: None,
                };
            }
            match brackets(tokens, index) {
                Brackets::Unopened => {
                    return SyntaxError {
                        span,
                        message: format!(
                            "unbalanced {}: this `{tok}` closes nothing",
                            bracket_word(&tok)
                        ),
                        expected: words,
                        hint: None,
                    };
                }
                Brackets::Mismatched(open) => {
                    if let Some((ol, otok, or)) = tokens.get(open) {
                        return SyntaxError {
                            span,
                            message: format!(
                                "unbalanced {}: this `{tok}` does not match the `{otok}` at bytes {ol}..{or}",
                                bracket_word(&tok)
                            ),
                            expected: words,
                            hint: None,
                        };
                    }
                }
                Brackets::Unclosed(open) if tok == Token::End => {
                    if let Some(e) = unclosed(tokens, open, words.clone()) {
                        return e;
                    }
                }
                _ => {}
            }
            // A clause that ends at a line break without its `.`, and a
            // new clause (or declaration) read as its continuation: point
            // where the `.` is missing.
            let prev_end = index
                .checked_sub(1)
                .and_then(|i| tokens.get(i))
                .map(|t| t.2);
            if let (Some(p), Some(end)) = (prev, prev_end) {
                let between = text.get(end..l).unwrap_or("");
                if ctx == Context::Item
                    && ends_term(p)
                    && between.contains('\n')
                    && expected.iter().any(|e| e == "\".\"")
                {
                    return SyntaxError {
                        span: end..end,
                        message: format!(
                            "expected `.` at the end of the clause, before {} on the next line",
                            tok.describe()
                        ),
                        expected: words,
                        hint: None,
                    };
                }
            }
            // After an operator, keyword or opening bracket, say what was
            // wanted there; after a complete term, just what was found.
            let message = match (prev, words.as_deref()) {
                (Some(p), Some(w)) if !ends_term(p) => {
                    format!(
                        "expected {w} after {}, but found {}",
                        p.describe(),
                        tok.describe()
                    )
                }
                _ if tok == Token::End => "unexpected `.`: the clause is not finished".to_string(),
                _ => format!("unexpected {}", tok.describe()),
            };
            SyntaxError {
                span,
                message,
                expected: words,
                hint: None,
            }
        }
    }
}

/// How Lolli writes a construct that another logic language spells
/// differently, when the error at `span` in `src` falls on one: λProlog's
/// quantifiers `pi x \ G` and `sigma x \ G` (the error is at the `\`),
/// linear logic's `!G`, Prolog's cut `!`, negation `\+ G`, `A \= B`,
/// `==`, `//`, `mod`, list brackets and `(C -> T ; E)`, and a negative
/// argument written without brackets.  Looking at the text, not at tokens, covers lexical and
/// grammar errors alike.
fn hint(src: &str, span: &Span) -> Option<String> {
    let at = src.get(span.start..)?;
    let before = src.get(..span.start)?;
    match at.chars().next()? {
        '\\' if at.starts_with("\\+") => {
            Some("negation is written `not G`: `\\+ G` is `not G`".to_string())
        }
        '\\' if at.starts_with("\\=") && !at.starts_with("\\==") => {
            Some("`A \\= B` is written `not (A = B)`".to_string())
        }
        '\\' => {
            // `pi x \`: a quantifier word, then the bound name.
            let rest = before.trim_end();
            let bound = rest.trim_end_matches(lexer::is_ident_char);
            if bound.len() == rest.len() {
                return None;
            }
            let word = bound.trim_end();
            let quant = if word.ends_with("pi") {
                ("pi", "forall")
            } else if word.ends_with("sigma") {
                ("sigma", "exists")
            } else {
                return None;
            };
            let start = word.len() - quant.0.len();
            if word[..start].ends_with(lexer::is_ident_char) {
                return None;
            }
            Some(format!(
                "`{} x \\ G` is written `{} x \\ G`",
                quant.0, quant.1
            ))
        }
        '!' => {
            let next = at[1..].trim_start().chars().next();
            let goal = next.is_some_and(|c| lexer::is_ident_char(c) || "({'\"".contains(c));
            Some(if goal {
                "`!G` is written `{G}`: a goal in braces uses no linear resource".to_string()
            } else {
                "there is no cut `!`: `once G` or `G1 -> G2 | G3` keep only the first proof of a goal"
                    .to_string()
            })
        }
        '=' if before.ends_with('=') => Some(
            "there is no `==`: `A = B` unifies, `A =:= B` compares numbers, `not (A = B)` \
             tests that they do not unify"
                .to_string(),
        ),
        '/' if before.ends_with('/') => {
            Some("integer division is `/` (it truncates toward zero): `//` is `/`".to_string())
        }
        'm' if at.starts_with("mod") && !at[3..].starts_with(lexer::is_ident_char) => {
            Some(NO_MOD.to_string())
        }
        '[' | ']' => Some(
            "lists are written with `::` and `nil`: `[a, b]` is `a :: b :: nil`, `[H|T]` is `H :: T`, `[]` is `nil`"
                .to_string(),
        ),
        c if starts_term(c) && after_negative_argument(before) => {
            Some(NEGATIVE_ARGUMENT.to_string())
        }
        ';' | ',' if in_open_guard(before) => Some(
            "a guard is written `(C -> T | E)`, with `|` where Prolog has `;`, and it binds \
             tighter than `,` and `;`: bracket a conjunction in it, `(C -> (T1 , T2) | E)`"
                .to_string(),
        ),
        _ => None,
    }
}

/// Whether `before` has a guard's `->` (not the end of `-->`) with no `|`
/// after it: a `;` or `,` that is an error there was meant inside it.
fn in_open_guard(before: &str) -> bool {
    match before.rfind("->") {
        Some(i) => !before[..i].ends_with('-') && !before[i..].contains('|'),
        None => false,
    }
}

/// Advice for `A mod B`, which Lolli's arithmetic does not have (a syntax
/// error after a number, an application of a variable's value at run time).
pub(crate) const NO_MOD: &str = "there is no `mod`: arithmetic has `+ - * /`, and \
     `A - (A / B) * B` is the remainder (its sign that of `A`)";

/// Advice for `f -1` written for `f (-1)`: a syntax error when more
/// arguments follow (`dir -1 0`), and a clause or call of `-` otherwise
/// (the load-time warnings give it then).
pub(crate) const NEGATIVE_ARGUMENT: &str = "a negative number as an argument is written in \
     brackets, as in `f (-1)`: `f -1` is the subtraction `f - 1`";

/// Whether a term can start with `c`.
fn starts_term(c: char) -> bool {
    lexer::is_ident_char(c) || "({'\"".contains(c)
}

/// Whether `before` ends with an argument, a space, and a number with a
/// minus sign written against it (`dir -1`), which reads as a subtraction.
fn after_negative_argument(before: &str) -> bool {
    let rest = before.trim_end();
    let digits = rest.trim_end_matches(|c: char| c.is_ascii_digit());
    if digits.len() == rest.len() {
        return false;
    }
    let Some(minus) = digits.strip_suffix('-') else {
        return false;
    };
    let operand = minus.trim_end();
    // (After `is`, an operator, a term starts: `-1` is a number there.)
    let word = &operand[operand.trim_end_matches(lexer::is_ident_char).len()..];
    operand.len() < minus.len()
        && word != "is"
        && operand.ends_with(|c: char| lexer::is_ident_char(c) || ")}'\"".contains(c))
}

/// The error for an opening bracket that is never closed.
fn unclosed(tokens: &[Spanned], open: usize, expected: Option<String>) -> Option<SyntaxError> {
    let (ol, otok, or) = tokens.get(open)?;
    Some(SyntaxError {
        span: *ol..*or,
        message: format!(
            "unbalanced {}: this `{otok}` is never closed",
            bracket_word(otok)
        ),
        expected,
        hint: None,
    })
}

fn ends_term(tok: &Token) -> bool {
    matches!(
        tok,
        Token::Name(_)
            | Token::Var(_)
            | Token::Wildcard
            | Token::Int(_)
            | Token::Str(_)
            | Token::RParen
            | Token::RBrace
    )
}

/// LALRPOP's expected terminals, compressed into a short list of words:
/// anything that starts a term becomes "a term", any binary operator
/// "an operator", the declaration keywords "a declaration".
fn compress(expected: &[String]) -> Option<String> {
    const TERM: &[&str] = &[
        "Name",
        "Var",
        "Int",
        "Str",
        "\"_\"",
        "\"(\"",
        "\"{\"",
        "\"forall\"",
        "\"exists\"",
    ];
    const DECL: &[&str] = &["\"MODULE\"", "\"LINEAR\"", "\"LOCAL\"", "\"MEMO\""];
    const OPS: &[&str] = &[
        "\":-\"",
        "\"<=\"",
        "\"-->\"",
        "\";\"",
        "\"&\"",
        "\",\"",
        "\"=>\"",
        "\"-o\"",
        "\"--o\"",
        "\"->\"",
        "\"=\"",
        "\"=:=\"",
        "\"=\\\\=\"",
        "\"=<\"",
        "\">=\"",
        "\"<\"",
        "\">\"",
        "\"is\"",
        "\"+\"",
        "\"-\"",
        "\"*\"",
        "\"/\"",
        "\"::\"",
    ];
    let has = |set: &[&str]| expected.iter().any(|e| set.contains(&e.as_str()));
    // A whole term may start here (not just, say, a variable).
    let term = expected.iter().any(|e| e == "\"(\"");
    let ops = expected
        .iter()
        .filter(|e| OPS.contains(&e.as_str()))
        .count();
    let mut parts: Vec<String> = Vec::new();
    // After a complete term, arguments may follow as well as operators:
    // the operators are what a learner needs to hear first.
    let argument = term && ops > 0;
    if term && !argument {
        parts.push("a term".to_string());
    }
    if has(DECL) {
        parts.push("a declaration".to_string());
    }
    if ops > 2 {
        parts.push("an operator".to_string());
    }
    for e in expected {
        let e = e.as_str();
        let skip =
            (term && TERM.contains(&e)) || DECL.contains(&e) || (ops > 2 && OPS.contains(&e));
        if !skip {
            parts.push(token::describe_terminal(e));
        }
    }
    if argument {
        parts.push("an argument".to_string());
    }
    match parts.len() {
        0 => None,
        1 => parts.pop(),
        n => {
            let last = parts.remove(n - 1);
            Some(format!("{} or {}", parts.join(", "), last))
        }
    }
}
