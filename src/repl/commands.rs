//! The top level's `:`-commands: their names and aliases, how a command line
//! parses, and the help text (one line per command, then a crib of the
//! connectives and their readings as resource operations).
//!
//! Parsing is separate from running (the backend runs a [`Command`]), so the
//! table below is the one place that lists the commands: the parser, the
//! help text and Tab completion all read it.

use std::fmt;

/// A parsed command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `:help`: list the commands and the connectives.
    Help,
    /// `:load FILE`: load a program file into the current top level.
    Load(String),
    /// `:reload`: load every file again, keeping the nesting.
    Reload,
    /// `:context`: the clauses and resources the next query runs with.
    Context,
    /// `:proof`: the proof of the last answer.
    Proof,
    /// `:moves PRED`: the uses of a predicate in the last proof.
    Moves(String),
    /// `:trace on|off`: step-by-step trace of the search.
    Trace(bool),
    /// `:time on|off`: time and inferences per query.
    Time(bool),
    /// `:stats`: statistics of the session.
    Stats,
    /// `:memo [PRED]`: memoize the failures of a predicate, or (without
    /// one) list the memoized predicates and the table's figures.
    Memo(Option<String>),
    /// `:memo off [PRED]`: stop memoizing a predicate, or every one.
    MemoOff(Option<String>),
    /// `:quit`: leave the interpreter.
    Quit,
}

/// What a command takes after its name.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Arg {
    None,
    /// A file name or predicate name (the rest of the line).
    Word(&'static str),
    /// `on` or `off`.
    Switch,
    /// A word that may be left out.
    Optional(&'static str),
}

/// One command: canonical name, aliases, argument and a one-line description.
struct Spec {
    name: &'static str,
    aliases: &'static [&'static str],
    arg: Arg,
    about: &'static str,
}

const SPECS: &[Spec] = &[
    Spec {
        name: "help",
        aliases: &["h", "?"],
        arg: Arg::None,
        about: "this list, and the connectives as resource operations",
    },
    Spec {
        name: "load",
        aliases: &["l"],
        arg: Arg::Word("FILE"),
        about: "load a program file into the current top level",
    },
    Spec {
        name: "reload",
        aliases: &["r"],
        arg: Arg::None,
        about: "load every file again (picking up edits), keeping the nesting",
    },
    Spec {
        name: "context",
        aliases: &["ctx", "c"],
        arg: Arg::None,
        about: "the clauses and linear resources the next query runs with, by predicate, in the order tried",
    },
    Spec {
        name: "proof",
        aliases: &["p"],
        arg: Arg::None,
        about: "the proof of the last answer",
    },
    Spec {
        name: "moves",
        aliases: &["m"],
        arg: Arg::Word("PRED"),
        about: "the uses of predicate PRED in the last proof",
    },
    Spec {
        name: "trace",
        aliases: &["t"],
        arg: Arg::Switch,
        about: "step-by-step trace of the search",
    },
    Spec {
        name: "time",
        aliases: &[],
        arg: Arg::Switch,
        about: "show time and number of inferences after each query",
    },
    Spec {
        name: "stats",
        aliases: &["s"],
        arg: Arg::None,
        about: "statistics of this session",
    },
    Spec {
        name: "memo",
        aliases: &[],
        arg: Arg::Optional("PRED"),
        about:
            "memoize PRED's failures (as `MEMO PRED.`); alone: list them; `:memo off [PRED]`: stop",
    },
    Spec {
        name: "quit",
        aliases: &["q", "exit"],
        arg: Arg::None,
        about: "leave the interpreter (as `bye.` or Ctrl-D at the outermost level)",
    },
];

/// A command line that does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandError {
    /// What is wrong, in words.
    pub message: String,
    /// A suggestion, if there is one.
    pub hint: Option<String>,
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(h) = &self.hint {
            write!(f, "\n  {h}")?;
        }
        Ok(())
    }
}

fn error(message: String, hint: Option<String>) -> CommandError {
    CommandError { message, hint }
}

/// Whether a line is a command (starts with `:` after blanks).
pub fn is_command(line: &str) -> bool {
    line.trim_start().starts_with(':')
}

/// The first piece of a text given to a top level, and the rest: a
/// command is one line; a goal ends at its first clause-ending `.`
/// ([`crate::syntax::term_end`]), or is the whole text when it has none.
/// Several goals on one line, or pasted as one piece, then run in turn.
/// The rest is empty when only white space and comments remain.
///
/// ```
/// use lolli::repl::commands::split_first;
/// assert_eq!(split_first("p X. q.\n"), ("p X.", " q.\n"));
/// assert_eq!(split_first(":time on\nq.\n"), (":time on\n", "q.\n"));
/// assert_eq!(split_first("p 'a. b'. % done\n"), ("p 'a. b'. % done\n", ""));
/// assert_eq!(split_first("p (X"), ("p (X", ""));
/// ```
pub fn split_first(text: &str) -> (&str, &str) {
    let end = if is_command(text) {
        text.find('\n').map(|i| i + 1)
    } else {
        crate::syntax::term_end(text)
    };
    match end {
        Some(end) if !crate::syntax::is_blank(&text[end..]) => text.split_at(end),
        _ => (text, ""),
    }
}

/// Parse a command line (`:name args`).
pub fn parse(line: &str) -> Result<Command, CommandError> {
    let line = line.trim();
    let body = line.strip_prefix(':').unwrap_or(line);
    let (word, rest) = match body.find(char::is_whitespace) {
        Some(i) => (&body[..i], body[i..].trim()),
        None => (body, ""),
    };
    // `:quit.` reads like a goal; a final `.` on a command without argument is ignored.
    let word = word.strip_suffix('.').unwrap_or(word);
    let Some(spec) = SPECS
        .iter()
        .find(|s| s.name == word || s.aliases.contains(&word))
    else {
        let names: Vec<String> = SPECS.iter().map(|s| s.name.to_string()).collect();
        let hint = match crate::util::nearest(word, &names) {
            Some(n) => format!("did you mean `:{n}`? (`:help` lists the commands)"),
            None => "`:help` lists the commands".to_string(),
        };
        return Err(error(format!("unknown command `:{word}`"), Some(hint)));
    };
    let usage = || {
        Some(match spec.arg {
            Arg::None => format!("usage: :{}", spec.name),
            Arg::Word(w) => format!("usage: :{} {w}", spec.name),
            Arg::Switch => format!("usage: :{} on|off", spec.name),
            Arg::Optional(w) => format!("usage: :{} [{w}]", spec.name),
        })
    };
    match spec.arg {
        Arg::None if !rest.is_empty() && rest != "." => Err(error(
            format!("`:{}` takes no argument", spec.name),
            usage(),
        )),
        Arg::Word(w) if rest.is_empty() => Err(error(
            format!("`:{}` needs an argument {w}", spec.name),
            usage(),
        )),
        Arg::Switch => {
            let on = match rest.trim_end_matches('.') {
                "on" => true,
                "off" => false,
                "" => {
                    return Err(error(
                        format!("`:{}` needs `on` or `off`", spec.name),
                        usage(),
                    ))
                }
                other => {
                    return Err(error(
                        format!("`:{}` takes `on` or `off`, not `{other}`", spec.name),
                        usage(),
                    ))
                }
            };
            Ok(match spec.name {
                "trace" => Command::Trace(on),
                _ => Command::Time(on),
            })
        }
        _ => Ok(match spec.name {
            "help" => Command::Help,
            "load" => Command::Load(file_name(rest)),
            "reload" => Command::Reload,
            "context" => Command::Context,
            "proof" => Command::Proof,
            "moves" => Command::Moves(rest.trim_end_matches('.').to_string()),
            "stats" => Command::Stats,
            "memo" => match rest.trim_end_matches('.').trim() {
                "" => Command::Memo(None),
                "off" => Command::MemoOff(None),
                arg => match arg
                    .strip_prefix("off")
                    .filter(|r| r.starts_with(char::is_whitespace))
                {
                    Some(name) => Command::MemoOff(Some(name.trim().to_string())),
                    None => Command::Memo(Some(arg.to_string())),
                },
            },
            _ => Command::Quit,
        }),
    }
}

/// Every command name with its leading `:` (for completion).
pub fn names() -> Vec<String> {
    SPECS.iter().map(|s| format!(":{}", s.name)).collect()
}

/// The text `:help` prints.
pub fn help() -> String {
    let mut out = String::from(
        "Type a goal ending with `.`; after an answer, `;` asks for the next one and\n\
         Enter stops.  Ctrl-C interrupts a running query; Ctrl-D leaves a nested top\n\
         level (`pop.` too), or the interpreter at the outermost one (`bye.` too).\n\n\
         Commands (aliases in brackets):\n",
    );
    for s in SPECS {
        let head = match s.arg {
            Arg::None => format!(":{}", s.name),
            Arg::Word(w) => format!(":{} {w}", s.name),
            Arg::Switch => format!(":{} on|off", s.name),
            Arg::Optional(w) => format!(":{} [{w}]", s.name),
        };
        let aliases = if s.aliases.is_empty() {
            String::new()
        } else {
            let a: Vec<String> = s.aliases.iter().map(|a| format!(":{a}")).collect();
            format!(" [{}]", a.join(" "))
        };
        out.push_str(&format!("  {:<24}{}{aliases}\n", head, s.about));
    }
    out.push_str(CRIB);
    out
}

/// The connectives, their linear logic symbols and what they do to resources.
const CRIB: &str = "
Connectives (R is the multiset of linear resources a goal must use up):
  G1 , G2      ⊗  split R: G1 uses some, G2 must use the rest
  G1 & G2      &  both G1 and G2 get all of R (each uses it up)
  G1 ; G2      ⊕  either G1 or G2, with all of R
  D -o G       ⊸  add D to R (used exactly once) while proving G
  D => G       →  add D as an unbounded clause (any number of uses) for G
  M --o G         add module M's clauses (its LINEAR ones to R) for G
  {G}          !  prove G with no linear resources (R must be empty here)
  true         1  succeed, using nothing
  erase        ⊤  succeed, using up whatever is left of R
  fail         0  fail
  forall x\\ G  ∀  prove G for a fresh name x
  exists x\\ G  ∃  prove G for some term x
  G :- B          a clause: to prove G, prove B (B may use R)
  LINEAR C.       in a program: C is a linear resource, not a clause
";

/// The file name of `:load`: as typed, except that a final `.` (as other
/// commands and goals end) and the quotes of a string (as `telling` and
/// `seeing` take file names) are dropped.
fn file_name(arg: &str) -> String {
    let name = arg.trim();
    let name = name.strip_suffix('.').unwrap_or(name).trim_end();
    match name.strip_prefix('"').and_then(|n| n.strip_suffix('"')) {
        Some(quoted) => quoted.to_string(),
        None => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn commands_parse_with_aliases() {
        assert_eq!(parse(":help"), Ok(Command::Help));
        assert_eq!(parse(" :h "), Ok(Command::Help));
        assert_eq!(parse(":?"), Ok(Command::Help));
        assert_eq!(
            parse(":load programs/solitaire.lolli"),
            Ok(Command::Load("programs/solitaire.lolli".into()))
        );
        assert_eq!(parse(":l x.lolli"), Ok(Command::Load("x.lolli".into())));
        for typed in [
            ":load x.lolli.",
            ":load \"x.lolli\"",
            ":load \"x.lolli\".",
            ":l  x.lolli . ",
        ] {
            assert_eq!(parse(typed), Ok(Command::Load("x.lolli".into())), "{typed}");
        }
        assert_eq!(parse(":r"), Ok(Command::Reload));
        assert_eq!(parse(":ctx"), Ok(Command::Context));
        assert_eq!(parse(":moves jump"), Ok(Command::Moves("jump".into())));
        assert_eq!(parse(":time on"), Ok(Command::Time(true)));
        assert_eq!(parse(":t off"), Ok(Command::Trace(false)));
        assert_eq!(parse(":quit."), Ok(Command::Quit));
        assert_eq!(parse(":exit"), Ok(Command::Quit));
        assert_eq!(parse(":stats"), Ok(Command::Stats));
        assert_eq!(parse(":memo"), Ok(Command::Memo(None)));
        assert_eq!(parse(":memo."), Ok(Command::Memo(None)));
        assert_eq!(parse(":memo jump."), Ok(Command::Memo(Some("jump".into()))));
        assert_eq!(parse(":memo off"), Ok(Command::MemoOff(None)));
        assert_eq!(
            parse(":memo off jump."),
            Ok(Command::MemoOff(Some("jump".into())))
        );
        // A predicate whose name starts with `off`, or is `off` quoted.
        assert_eq!(
            parse(":memo offset"),
            Ok(Command::Memo(Some("offset".into())))
        );
        assert_eq!(
            parse(":memo 'off'"),
            Ok(Command::Memo(Some("'off'".into())))
        );
    }

    #[test]
    fn bad_commands_say_why() {
        assert_eq!(
            parse(":lod x").unwrap_err().to_string(),
            "unknown command `:lod`\n  did you mean `:load`? (`:help` lists the commands)"
        );
        assert_eq!(
            parse(":time maybe").unwrap_err().to_string(),
            "`:time` takes `on` or `off`, not `maybe`\n  usage: :time on|off"
        );
        assert_eq!(
            parse(":trace").unwrap_err().to_string(),
            "`:trace` needs `on` or `off`\n  usage: :trace on|off"
        );
        assert_eq!(
            parse(":load").unwrap_err().to_string(),
            "`:load` needs an argument FILE\n  usage: :load FILE"
        );
        assert_eq!(
            parse(":stats now").unwrap_err().to_string(),
            "`:stats` takes no argument\n  usage: :stats"
        );
    }

    #[test]
    fn help_lists_every_command_once() {
        let h = help();
        for s in SPECS {
            assert_eq!(
                h.matches(&format!("  :{}", s.name)).count(),
                1,
                "{}",
                s.name
            );
        }
        assert!(h.contains("D -o G       ⊸  add D to R (used exactly once) while proving G"));
    }
}
