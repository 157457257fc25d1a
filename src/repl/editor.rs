//! The terminal front end: a rustyline editor around the [`Backend`].
//!
//! The [`LolliHelper`] gives the editor Lolli's shape: Enter on a goal that
//! is not finished (by [`crate::syntax::is_complete`]) starts a new line of
//! the same goal, with a dim `|` hint saying more is expected; the bracket
//! under or before the cursor lights up its partner; Tab completes
//! `:`-commands, file names after `:load`, and predicate and module names.
//!
//! Keys: at the prompt, Ctrl-C clears the line and Ctrl-D leaves the current
//! top level.  While a query runs, the terminal is in its normal mode and
//! Ctrl-C raises SIGINT, whose handler sets the machine's interrupt flag;
//! the engine notices within a few thousand steps and the query ends with
//! the error "interrupted", the session intact.  After an answer, `;` (or
//! `n`, space) asks for the next one and Enter stops.

use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::{CmdKind, Highlighter, MatchingBracketHighlighter};
use rustyline::hint::Hinter;
use rustyline::history::{DefaultHistory, FileHistory, History};
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{
    Cmd, ConditionalEventHandler, Context, Editor, Event, EventContext, EventHandler, Helper,
    KeyEvent, RepeatCount,
};

use super::backend::{Backend, Next, Output, Reply};
use super::commands;

/// The editor's knowledge of Lolli: completion, hints, brackets, validation.
pub struct LolliHelper {
    /// Predicate and module names to complete.
    pub words: Vec<String>,
    brackets: MatchingBracketHighlighter,
    files: FilenameCompleter,
}

impl LolliHelper {
    /// A helper completing `words` (and the commands).
    pub fn new(words: Vec<String>) -> Self {
        LolliHelper {
            words,
            brackets: MatchingBracketHighlighter::new(),
            files: FilenameCompleter::new(),
        }
    }

    /// Completions of the text before `pos`: where the replaced word starts
    /// and the candidates.
    pub fn candidates(&self, line: &str, pos: usize) -> (usize, Vec<String>) {
        let before = &line[..pos];
        let start = before
            .char_indices()
            .rev()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let word = &before[start..];
        if before[..start].trim_start() == ":" {
            let typed = format!(":{word}");
            let found = commands::names()
                .into_iter()
                .filter(|n| n.starts_with(&typed))
                .collect();
            return (start - 1, found);
        }
        if word.is_empty() || !word.starts_with(|c: char| c.is_lowercase()) {
            return (start, Vec::new());
        }
        let found = self
            .words
            .iter()
            .filter(|w| w.starts_with(word))
            .cloned()
            .collect();
        (start, found)
    }
}

impl Completer for LolliHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let head = line.trim_start();
        if head.starts_with(":load ") || head.starts_with(":l ") {
            return self.files.complete(line, pos, ctx);
        }
        let (start, words) = self.candidates(line, pos);
        let pairs = words
            .into_iter()
            .map(|w| Pair {
                display: w.clone(),
                replacement: w,
            })
            .collect();
        Ok((start, pairs))
    }
}

/// Whether the input needs more lines: a goal without its final `.`.
fn incomplete(input: &str) -> bool {
    !crate::syntax::is_blank(input)
        && !commands::is_command(input)
        && !is_answer_key(input)
        && !crate::syntax::is_complete(input)
}

/// Whether `input` is only the key that asks for the next answer, typed at
/// the prompt (one `;` too many after the last answer): the backend says
/// so, rather than the line waiting for the rest of a goal.
fn is_answer_key(input: &str) -> bool {
    input.trim() == ";"
}

impl Hinter for LolliHelper {
    type Hint = String;

    fn hint(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> Option<String> {
        let last = line.rsplit('\n').next().unwrap_or("");
        (pos == line.len() && line.contains('\n') && last.trim().is_empty() && incomplete(line))
            .then(|| "|  (the goal goes on until a `.`)".to_string())
    }
}

impl Highlighter for LolliHelper {
    fn highlight<'l>(&self, line: &'l str, pos: usize) -> Cow<'l, str> {
        self.brackets.highlight(line, pos)
    }

    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        Cow::Owned(format!("\x1b[2m{hint}\x1b[0m"))
    }

    fn highlight_char(&self, line: &str, pos: usize, kind: CmdKind) -> bool {
        self.brackets.highlight_char(line, pos, kind)
    }
}

impl Validator for LolliHelper {
    fn validate(&self, ctx: &mut ValidationContext<'_>) -> rustyline::Result<ValidationResult> {
        Ok(if incomplete(ctx.input()) {
            ValidationResult::Incomplete
        } else {
            ValidationResult::Valid(None)
        })
    }
}

impl Helper for LolliHelper {}

/// The history file: `$LOLLI_HISTORY` if set (empty: no history), else
/// `lolli/history` under `$XDG_DATA_HOME` or `~/.local/share`.
pub fn history_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("LOLLI_HISTORY") {
        return (!p.is_empty()).then(|| PathBuf::from(p));
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".local").join("share"))
        })?;
    Some(data.join("lolli").join("history"))
}

/// `;` (and `n`, space) after an answer: note it and accept the line.
struct NextKey(Arc<AtomicBool>);

impl ConditionalEventHandler for NextKey {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        // Only as the first key: after other text it is text (a goal typed
        // at `more?`, see [`MoreReader::ask`]).
        if !ctx.line().is_empty() {
            return None;
        }
        self.0.store(true, Ordering::Relaxed);
        Some(Cmd::AcceptLine)
    }
}

/// What is typed at `more?`.
enum MoreKey {
    /// `;`, `n` or space: the next answer.
    Next,
    /// Enter, Ctrl-C or Ctrl-D: no more answers.
    Stop,
    /// A line of other text: no more answers, and the text is the next
    /// input (a goal typed without noticing the question).
    Input(String),
}

/// The line editors' settings.  The editing happens at the terminal even
/// when standard output goes to a file or a pipe (`lolli > log`): the
/// prompts and the echo go to the terminal, the answers to the output.
fn terminal_config() -> rustyline::Config {
    rustyline::Config::builder()
        .auto_add_history(false)
        .behavior(rustyline::config::Behavior::PreferTerm)
        .build()
}

/// Reads the key that follows an answer.
struct MoreReader {
    editor: Editor<(), DefaultHistory>,
    next: Arc<AtomicBool>,
}

impl MoreReader {
    fn new() -> rustyline::Result<Self> {
        let mut editor = Editor::<(), DefaultHistory>::with_config(terminal_config())?;
        let next = Arc::new(AtomicBool::new(false));
        for key in [';', 'n', ' '] {
            editor.bind_sequence(
                KeyEvent::from(key),
                EventHandler::Conditional(Box::new(NextKey(next.clone()))),
            );
        }
        Ok(MoreReader { editor, next })
    }

    /// Ask whether to look for the next answer.
    fn ask(&mut self) -> MoreKey {
        self.next.store(false, Ordering::Relaxed);
        match self.editor.readline("more? (; next, Enter stop) ") {
            Ok(_) if self.next.load(Ordering::Relaxed) => MoreKey::Next,
            Ok(line) if line.trim() == ";" => MoreKey::Next,
            Ok(line) if crate::syntax::is_blank(&line) => MoreKey::Stop,
            Ok(line) => MoreKey::Input(line),
            Err(_) => MoreKey::Stop,
        }
    }
}

/// Set by SIGINT (Ctrl-C while a query runs, with the terminal in its
/// normal mode, which echoes `^C`): the reply that follows starts on a
/// line of its own.  Cleared before each input is handed to the backend.
fn ctrl_c_typed() -> &'static Arc<AtomicBool> {
    static TYPED: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    TYPED.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// Forget a Ctrl-C typed before the input about to run.
fn forget_ctrl_c() {
    ctrl_c_typed().store(false, Ordering::Relaxed);
}

/// Whether the terminal echoes a Ctrl-C as `^C` (its `ECHOCTL` mode).
fn echoes_ctrl_c() -> bool {
    #[cfg(unix)]
    {
        use nix::sys::termios::{tcgetattr, LocalFlags};
        tcgetattr(std::io::stdin()).is_ok_and(|t| {
            t.local_flags
                .contains(LocalFlags::ECHO | LocalFlags::ECHOCTL)
        })
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// Print a reply for a person at a terminal.  Answers go to standard
/// output; so does what the top level says itself (command output, the
/// trace, the notes on nested levels) while standard output is the
/// terminal, but with standard output sent to a file (`lolli > log`) that
/// goes to the terminal on standard error, with the diagnostics: the file
/// gets what the goals print and their answers.
pub fn show(reply: &Reply) {
    // After what the goal printed (the terminal's writes are not held back,
    // but standard output may be a file).
    let _ = crate::stdio::flush();
    // A Ctrl-C that stopped the query left `^C` on the terminal's line:
    // what follows (the error `interrupted`) starts a line of its own.
    if !reply.outputs.is_empty() && ctrl_c_typed().swap(false, Ordering::Relaxed) && echoes_ctrl_c()
    {
        eprintln!();
        if std::io::stdout().is_terminal() {
            crate::stdio::set_line_start();
        }
    }
    let to_terminal = std::io::stdout().is_terminal();
    let mut out = std::io::stdout().lock();

    // An answer starts on a line of its own, also after `write hello`.
    let starts_line = |o: &Output| {
        matches!(
            o,
            Output::Answer(_) | Output::No | Output::Count(_) | Output::Aborted
        )
    };
    if reply.outputs.iter().any(starts_line) && !crate::stdio::at_line_start() {
        let _ = writeln!(out);
    }
    crate::stdio::set_line_start();
    for o in &reply.outputs {
        let _ = match o {
            Output::Answer(a) => writeln!(out, "{a}"),
            Output::No => writeln!(out, "no"),
            Output::Count(n) => writeln!(out, "{n}"),
            Output::Aborted => writeln!(out, "aborted"),
            Output::Opened(d) => said(
                &mut out,
                to_terminal,
                &format!(
                    "[nested top level {d}: its context holds what the goal assumed; \
                     `pop.` or Ctrl-D returns]\n"
                ),
            ),
            Output::Closed(0) => said(&mut out, to_terminal, "[back at the outermost top level]\n"),
            Output::Closed(d) => said(&mut out, to_terminal, &format!("[back at top level {d}]\n")),
            Output::Outermost => said(
                &mut out,
                to_terminal,
                "You are at the outermost top level; `bye.` or Ctrl-D leaves.\n",
            ),
            Output::Text(t) => said(&mut out, to_terminal, t),
            Output::Error(e) | Output::Warning(e) | Output::Stats(e) | Output::Note(e) => {
                let _ = out.flush();
                eprint!("{e}");
                Ok(())
            }
        };
    }
    let _ = out.flush();
}

/// Write what the top level says itself: to `out` when standard output is
/// the terminal, else to the terminal on standard error (see [`show`]).
fn said(out: &mut impl Write, to_terminal: bool, text: &str) -> std::io::Result<()> {
    if to_terminal {
        out.write_all(text.as_bytes())
    } else {
        let _ = out.flush();
        eprint!("{text}");
        Ok(())
    }
}

/// Run the interactive top level until `bye`, `:quit` or Ctrl-D at the
/// outermost level, or (when `stop_below` > 0) until the nesting depth falls
/// below `stop_below`; returns the exit status.
pub fn run(backend: &mut Backend, stop_below: usize) -> i32 {
    let mut editor: Editor<LolliHelper, FileHistory> = match Editor::with_config(terminal_config())
    {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: cannot use the terminal: {e}");
            return 2;
        }
    };
    editor.set_helper(Some(LolliHelper::new(backend.completion_words())));
    let history = history_path();
    if let Some(p) = &history {
        let _ = editor.load_history(p);
    }
    let mut more = match MoreReader::new() {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: cannot use the terminal: {e}");
            return 2;
        }
    };
    let sigint =
        signal_hook::flag::register(signal_hook::consts::SIGINT, backend.interrupt_flag()).ok();
    let seen =
        signal_hook::flag::register(signal_hook::consts::SIGINT, ctrl_c_typed().clone()).ok();
    if stop_below == 0 {
        let banner = format!(
            "lolli {} — type a goal ending with `.`; `:help` for help; Ctrl-D or `bye.` leaves.",
            env!("CARGO_PKG_VERSION")
        );
        // With standard output sent elsewhere, it is for the answers.
        if std::io::stdout().is_terminal() {
            println!("{banner}");
        } else {
            eprintln!("{banner}");
        }
    }
    // A line typed at `more?` instead of an answer key, still to run.
    let mut typed: Option<String> = None;
    while backend.depth() >= stop_below {
        let line = match typed.take() {
            Some(line) => Ok(line),
            None => editor.readline(&backend.prompt()),
        };
        let next = match line {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.trim_end());
                    if let Some(p) = &history {
                        save_history(editor.history_mut(), p);
                    }
                }
                // Several goals in one submission (typed on one line, or
                // pasted) run in turn, as if typed one after the other.
                let mut text = line.as_str();
                loop {
                    let (piece, rest) = commands::split_first(text);
                    forget_ctrl_c();
                    let reply = backend.input(piece);
                    let (next, line) = converse(backend, &mut more, reply);
                    if let Some(line) = line {
                        // Run before the rest of this submission.
                        typed = Some(format!("{line}\n{rest}"));
                        break next;
                    }
                    if next == Next::Quit || rest.is_empty() || backend.depth() < stop_below {
                        break next;
                    }
                    text = rest;
                }
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => {
                let reply = backend.eof();
                let (next, line) = converse(backend, &mut more, reply);
                typed = line;
                next
            }
            Err(e) => {
                eprintln!("error: cannot read the terminal: {e}");
                break;
            }
        };
        if next == Next::Quit {
            break;
        }
        if let Some(h) = editor.helper_mut() {
            h.words = backend.completion_words();
        }
    }
    for id in [sigint, seen].into_iter().flatten() {
        signal_hook::low_level::unregister(id);
    }
    0
}

/// Show `reply`, and the next answers for as long as the person asks for
/// them; what the last reply expects next, and a line typed at `more?` in
/// place of a key (which stopped the answers), to run next.
fn converse(
    backend: &mut Backend,
    more: &mut MoreReader,
    mut reply: Reply,
) -> (Next, Option<String>) {
    loop {
        show(&reply);
        if reply.next != Next::More {
            return (reply.next, None);
        }
        let key = more.ask();
        forget_ctrl_c();
        reply = match key {
            MoreKey::Next => backend.more(true),
            MoreKey::Stop => backend.more(false),
            MoreKey::Input(line) => {
                let reply = backend.more(false);
                show(&reply);
                return (reply.next, Some(line));
            }
        };
    }
}

fn save_history(history: &mut FileHistory, path: &std::path::Path) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = history.save(path);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn helper() -> LolliHelper {
        LolliHelper::new(vec!["jump".into(), "solitaire".into(), "solitaire2".into()])
    }

    #[test]
    fn completes_commands_and_names() {
        let h = helper();
        assert_eq!(h.candidates(":lo", 3), (0, vec![":load".to_string()]));
        assert_eq!(
            h.candidates(":t", 2),
            (0, vec![":trace".to_string(), ":time".to_string()])
        );
        assert_eq!(
            h.candidates("sol", 3),
            (0, vec!["solitaire".to_string(), "solitaire2".to_string()])
        );
        assert_eq!(h.candidates("b X, ju", 7), (5, vec!["jump".to_string()]));
        assert_eq!(h.candidates("X", 1), (0, Vec::<String>::new()));
    }

    #[test]
    fn goals_continue_until_their_dot() {
        assert!(incomplete("jump (s z)"));
        assert!(incomplete("jump (s\n z"));
        assert!(!incomplete("jump (s z)."));
        assert!(!incomplete(":help"));
        assert!(!incomplete("   "));
    }
}
