//! The tokens of Lolli's concrete syntax, as produced by the lexer and
//! consumed by the LALRPOP grammar.
//!
//! Invariants: a `Name` holds the text of a constant exactly as the program
//! means it (a quoted name is stored unquoted, with its escapes resolved),
//! so `'forall'` and `foo` are both plain `Name`s and never keywords; a
//! `Var` always starts with an upper-case letter or `_` and is never the lone
//! `_` (that is `Wildcard`); an `Int` may be negative only when the lexer
//! glued a `-` to the digits (see `lexer.rs`).
//!
//! `Display` prints a token the way it would be written in a program;
//! `describe` gives the words used in error messages ("name `foo`",
//! "`-o`", "end of clause `.`"); `describe_terminal` does the same for the
//! terminal names that LALRPOP lists as "expected".

use std::fmt;

/// One token of Lolli source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    /// A lower-case identifier or a quoted name (stored unquoted).
    Name(String),
    /// A variable: an identifier starting with an upper-case letter or `_`.
    Var(String),
    /// The anonymous variable `_`.
    Wildcard,
    /// An integer literal (negative when written `-123` where a term starts).
    Int(i64),
    /// A string literal, escapes resolved.
    Str(String),
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `\` (separates a binder's variable from its body)
    Backslash,
    /// `.` ending a clause (followed by white space, `%` or the end of input)
    End,
    /// `:-`
    Neck,
    /// `<=`
    RevImp,
    /// `-->`
    Dcg,
    /// `;`
    Semi,
    /// `&`
    Amp,
    /// `,`
    Comma,
    /// `=>`
    Imp,
    /// `-o`
    Lolli,
    /// `--o`
    LongLolli,
    /// `->`
    Arrow,
    /// `|`
    Bar,
    /// `=`
    Eq,
    /// `=:=`
    ArithEq,
    /// `=\=`
    ArithNe,
    /// `=<`
    Le,
    /// `>=`
    Ge,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `is`
    Is,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `::`
    Cons,
    /// `forall`
    Forall,
    /// `exists`
    Exists,
    /// `MODULE`
    Module,
    /// `LINEAR`
    Linear,
    /// `LOCAL`
    Local,
    /// `MEMO`
    Memo,
}

impl Token {
    /// The fixed spelling of a punctuation, operator or keyword token;
    /// `None` for tokens that carry text or a number.
    pub fn symbol(&self) -> Option<&'static str> {
        use Token::*;
        Some(match self {
            Name(_) | Var(_) | Int(_) | Str(_) => return None,
            Wildcard => "_",
            LParen => "(",
            RParen => ")",
            LBrace => "{",
            RBrace => "}",
            Backslash => "\\",
            End => ".",
            Neck => ":-",
            RevImp => "<=",
            Dcg => "-->",
            Semi => ";",
            Amp => "&",
            Comma => ",",
            Imp => "=>",
            Lolli => "-o",
            LongLolli => "--o",
            Arrow => "->",
            Bar => "|",
            Eq => "=",
            ArithEq => "=:=",
            ArithNe => "=\\=",
            Le => "=<",
            Ge => ">=",
            Lt => "<",
            Gt => ">",
            Is => "is",
            Plus => "+",
            Minus => "-",
            Star => "*",
            Slash => "/",
            Cons => "::",
            Forall => "forall",
            Exists => "exists",
            Module => "MODULE",
            Linear => "LINEAR",
            Local => "LOCAL",
            Memo => "MEMO",
        })
    }

    /// True for the binary operators (the tokens that may follow a complete term).
    pub fn is_operator(&self) -> bool {
        use Token::*;
        matches!(
            self,
            Neck | RevImp
                | Dcg
                | Semi
                | Amp
                | Comma
                | Imp
                | Lolli
                | LongLolli
                | Arrow
                | Bar
                | Eq
                | ArithEq
                | ArithNe
                | Le
                | Ge
                | Lt
                | Gt
                | Is
                | Plus
                | Minus
                | Star
                | Slash
                | Cons
        )
    }

    /// Words naming this token in an error message, e.g. "name `foo`",
    /// "`-o`", "end of clause `.`".
    pub fn describe(&self) -> String {
        match self {
            Token::Name(_) => format!("name `{self}`"),
            Token::Var(v) => format!("variable `{v}`"),
            Token::Wildcard => "anonymous variable `_`".to_string(),
            Token::Int(n) => format!("number `{n}`"),
            Token::Str(_) => format!("string `{self}`"),
            Token::End => "end of clause `.`".to_string(),
            Token::Forall
            | Token::Exists
            | Token::Module
            | Token::Linear
            | Token::Local
            | Token::Memo => format!("keyword `{self}`"),
            _ => format!("`{self}`"),
        }
    }
}

/// Words for a terminal name as LALRPOP lists it in "expected" sets
/// (`Name`, `Var`, `Int`, `Str`, or a quoted symbol such as `"-o"`).
pub fn describe_terminal(terminal: &str) -> String {
    match terminal {
        "Name" => "a name".to_string(),
        "Var" => "a variable".to_string(),
        "Int" => "a number".to_string(),
        "Str" => "a string".to_string(),
        _ => {
            let sym = terminal
                .strip_prefix('"')
                .and_then(|t| t.strip_suffix('"'))
                .unwrap_or(terminal)
                .replace("\\\\", "\\");
            if sym == "." {
                "`.`".to_string()
            } else {
                format!("`{sym}`")
            }
        }
    }
}

/// True when `name` can be written without quotes (a lower-case identifier
/// that is not a keyword).
fn is_plain_name(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() && !c.is_uppercase() => {}
        _ => return false,
    }
    chars.all(|c| c.is_alphanumeric() || c == '_') && !matches!(name, "forall" | "exists" | "is")
}

fn write_escaped(f: &mut fmt::Formatter<'_>, text: &str, quote: char) -> fmt::Result {
    write!(f, "{quote}")?;
    for c in text.chars() {
        match c {
            '\\' => write!(f, "\\\\")?,
            '\n' => write!(f, "\\n")?,
            '\t' => write!(f, "\\t")?,
            c if c == quote => write!(f, "\\{c}")?,
            c => write!(f, "{c}")?,
        }
    }
    write!(f, "{quote}")
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Name(n) if is_plain_name(n) => write!(f, "{n}"),
            Token::Name(n) => write_escaped(f, n, '\''),
            Token::Var(v) => write!(f, "{v}"),
            Token::Int(n) => write!(f, "{n}"),
            Token::Str(s) => write_escaped(f, s, '"'),
            other => write!(f, "{}", other.symbol().unwrap_or("?")),
        }
    }
}
