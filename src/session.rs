//! The embedding API: a session holds a loaded program; a query yields its
//! answers lazily.
//!
//! A session starts with the prelude (`length`, `append`, `member`; see
//! [`PRELUDE`]).  Programs are added with [`Session::load_str`] and
//! [`Session::load_file`], single clauses and linear resources with
//! [`Session::add_clause`] and [`Session::add_resource`], and predicates
//! written in Rust with [`Session::register_builtin`].  A [`Query`] is an
//! iterator of [`Answer`]s, each holding its bindings both printed and as
//! [`Value`]s.
//!
//! ```
//! use lolli::{Session, Value};
//! let mut s = Session::new();
//! s.load_str("colours", "LINEAR red. LINEAR blue.\nboth :- red, blue.").unwrap();
//! let mut q = s.query("both").unwrap();
//! assert_eq!(q.next_answer().unwrap().unwrap().to_string(), "yes");
//! assert!(q.next_answer().unwrap().is_none());
//! drop(q);
//!
//! // Answers as Rust values, lazily (in a session without linear resources).
//! let mut s = Session::new();
//! let xs: Vec<Value> = s
//!     .query("append X Y (1 :: 2 :: nil)")
//!     .unwrap()
//!     .map(|a| a.unwrap().value("X").unwrap().clone())
//!     .collect();
//! assert_eq!(xs.len(), 3);
//! assert_eq!(xs[2].as_list(), Some(vec![Value::Int(1), Value::Int(2)]));
//! ```

use std::fmt;
use std::path::Path;

use crate::diagnostics::{render, Error, Warning};
use crate::engine::context::{Source, GONE};
use crate::engine::foreign::value_of;
pub use crate::engine::foreign::{ForeignFn, Value};
use crate::engine::machine::{Loaded, Parsed, NONE};
use crate::engine::{Event, Host, Machine, Options, StdHost};
use crate::logic::module::{find_module, module_name_of};
use crate::source::FileId;
use crate::term::{Cell, SymId};

/// The predicate name `text` spells, as a `MEMO` declaration reads it (a
/// quoted name unquoted); `None` if it is not one name.
///
/// ```
/// use lolli::session::predicate_name;
/// assert_eq!(predicate_name("jump").as_deref(), Some("jump"));
/// assert_eq!(predicate_name(" 'two words' ").as_deref(), Some("two words"));
/// assert_eq!(predicate_name("Jump"), None);
/// assert_eq!(predicate_name("a b"), None);
/// ```
pub fn predicate_name(text: &str) -> Option<String> {
    match crate::syntax::parse_program(&format!("MEMO {text}.")) {
        (items, errors) if errors.is_empty() => match items.as_slice() {
            [crate::syntax::Item::Memo(names, _)] if names.len() == 1 => Some(names[0].0.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// The text of the prelude, the library every session starts with: `length`,
/// `append` and `member` on `::`/`nil` lists, written in Lolli.
///
/// ```
/// assert!(lolli::session::PRELUDE.contains("append nil L L."));
/// ```
pub const PRELUDE: &str = include_str!("prelude.lolli");

/// One answer: the bindings of the query's named variables.
///
/// ```
/// let mut s = lolli::Session::new();
/// let a = s.query("X = f Y 3").unwrap().next_answer().unwrap().unwrap();
/// assert_eq!(a.to_string(), "X = f Y 3");
/// assert_eq!(a.bindings, vec![("X".to_string(), "f Y 3".to_string())]);
/// assert_eq!(a.value("Y"), Some(&lolli::Value::Var("Y".into())));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// `(name, printed value)` in order of first appearance in the query;
    /// variables left unbound are omitted.
    pub bindings: Vec<(String, String)>,
    /// `(name, value)` for every named variable of the query, in order of
    /// first appearance; an unbound one is a [`Value::Var`] (with its own
    /// name, or the name of the query variable it was unified with).
    pub values: Vec<(String, Value)>,
}

impl Answer {
    /// The value of the query variable `name`, if the query has it.
    ///
    /// ```
    /// let mut s = lolli::Session::new();
    /// let a = s.query("length (a :: b :: nil) N").unwrap().next_answer().unwrap().unwrap();
    /// assert_eq!(a.value("N"), Some(&lolli::Value::Int(2)));
    /// assert_eq!(a.value("M"), None);
    /// ```
    pub fn value(&self, name: &str) -> Option<&Value> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.bindings.is_empty() {
            return write!(f, "yes");
        }
        let parts: Vec<String> = self
            .bindings
            .iter()
            .map(|(n, v)| format!("{n} = {v}"))
            .collect();
        write!(f, "{}", parts.join(", "))
    }
}

/// What the search reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// An answer.
    Answer(Answer),
    /// No more answers.
    NoMore,
    /// The goal called `top`: a nested top level is open in this state.
    Top,
    /// The goal called `pop`.
    Pop,
    /// The goal called `popall`.
    PopAll,
    /// The goal called `bye` or `exit`.
    Bye,
    /// The goal called `abort`.
    Abort,
}

/// An interpreter session: the loaded program and its context.
///
/// ```
/// let mut s = lolli::Session::new();
/// s.load_str("family", "parent tom bob. parent bob ann.\n\
///                       grand X Z :- parent X Y, parent Y Z.").unwrap();
/// let a = s.query("grand tom Who").unwrap().next().unwrap().unwrap();
/// assert_eq!(a.to_string(), "Who = ann");
/// ```
pub struct Session {
    /// The machine (public for the REPL, the proof printers and tests).
    pub machine: Machine,
    /// The prelude's entries in the base context, each with the predicates
    /// it defines; an entry is switched off when a program defines one of
    /// them (a user definition replaces the prelude's).
    prelude: Vec<(u32, Vec<(SymId, u32)>)>,
    /// Sources loaded into the base whose warnings were already taken.
    checked: Vec<FileId>,
    /// Sources loaded into the base whose warnings are still to be taken.
    unchecked: Vec<FileId>,
    /// The parsed items of the loaded sources, kept from their loading so
    /// that the warnings' checks (taken after loading, and again for
    /// `--memo` and `--moves`) read them without parsing the text again.
    /// A source loaded without its items at hand is parsed again when
    /// needed ([`Session::items_of`]).
    parsed: Vec<(FileId, Parsed)>,
    /// Where the next goal [`Session::prepare`] parses was read (see
    /// [`Session::next_goal_at`]).
    next_goal_at: Option<GoalAt>,
}

/// Where a goal was read: its source's name, line (from 1) and column
/// (the byte offset in that line, from 0) of its first character.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoalAt {
    /// The name messages show (`<stdin>`).
    pub name: String,
    /// The line of the goal's first character.
    pub line: usize,
    /// The byte offset of the goal's first character in its line.
    pub column: usize,
}

impl Default for Session {
    /// Same as [`Session::new`].
    ///
    /// ```
    /// let s = lolli::Session::default();
    /// assert_eq!(s.machine.depth(), 0);
    /// ```
    fn default() -> Self {
        Self::new()
    }
}

impl Session {
    /// A session with default options, printing to stdout, with the prelude loaded.
    ///
    /// ```
    /// let mut s = lolli::Session::new();
    /// let a = s.query("member X (a :: b :: nil)").unwrap().next().unwrap().unwrap();
    /// assert_eq!(a.to_string(), "X = a");
    /// ```
    pub fn new() -> Self {
        Session::with_options(Options::default(), Box::new(StdHost))
    }

    /// A session with options and an I/O host, with the prelude loaded.
    ///
    /// ```
    /// use lolli::{engine::BufferHost, Options, Session};
    /// let mut s = Session::with_options(Options::default(), Box::new(BufferHost::default()));
    /// assert!(s.query("write hello").unwrap().next().is_some());
    /// ```
    pub fn with_options(options: Options, host: Box<dyn Host>) -> Self {
        let mut s = Session::bare(options, host);
        s.load_prelude();
        s
    }

    /// A session without the prelude (no `length`, `append`, `member`).
    ///
    /// ```
    /// use lolli::{engine::StdHost, Options, Session};
    /// let mut s = Session::bare(Options::default(), Box::new(StdHost));
    /// assert!(s.query("member a (a :: nil)").unwrap().next().is_none());
    /// ```
    pub fn bare(mut options: Options, host: Box<dyn Host>) -> Self {
        if options.search_path.is_empty() {
            options.search_path.push(".".into());
        }
        Session {
            machine: Machine::new(options, host),
            checked: Vec::new(),
            unchecked: Vec::new(),
            parsed: Vec::new(),
            prelude: Vec::new(),
            next_goal_at: None,
        }
    }

    /// Load the prelude ([`PRELUDE`]) into the base context.  Sessions made
    /// by [`Session::new`] and [`Session::with_options`] already have it;
    /// loading it again adds nothing.
    ///
    /// ```
    /// use lolli::{engine::StdHost, Options, Session};
    /// let mut s = Session::bare(Options::default(), Box::new(StdHost));
    /// s.load_prelude();
    /// let a = s.query("length (x :: y :: nil) N").unwrap().next().unwrap().unwrap();
    /// assert_eq!(a.to_string(), "N = 2");
    /// ```
    pub fn load_prelude(&mut self) {
        if !self.prelude.is_empty() {
            return;
        }
        let file = self.machine.sources.add("<prelude>", PRELUDE);
        // The prelude is part of the crate and compiles; should it not, the
        // session simply starts without it.
        let Ok((loaded, items)) = self.machine.compile_parsed(PRELUDE, file, "prelude", None)
        else {
            return;
        };
        self.parsed.push((file, items));
        let (first, end) = self.assume_module_base(&loaded);
        for e in first..end {
            let preds = self.preds_of_entry(e);
            self.prelude.push((e, preds));
        }
        // Programs are judged with the prelude's definitions in view; the
        // prelude itself is not warned about.
        self.checked.push(file);
    }

    /// Load a program file into the base context (its `LINEAR` clauses become
    /// linear resources every query must consume).  A `MODULE` declaration
    /// in it must agree with the file name.  Warnings are kept for
    /// [`Session::take_warnings`].  A predicate the file defines replaces
    /// the prelude's predicate of the same name and arity.
    ///
    /// ```no_run
    /// let mut s = lolli::Session::new();
    /// s.load_file("programs/solitaire.lolli").unwrap();
    /// ```
    pub fn load_file(&mut self, path: impl AsRef<Path>) -> Result<(), Vec<Error>> {
        let path = path.as_ref();
        // Any file that is not a directory: a FIFO, `/dev/null` or a
        // process substitution (`lolli <(gen)`) is read to its end once.
        if !path.exists() || path.is_dir() {
            return Err(vec![missing_file(path)]);
        }
        // A file named by its path may declare any module name (only
        // `--o` and `load`, which find a file by module name, need the two
        // to agree).
        let (loaded, items) = self.machine.module_at_parsed(path, None)?;
        self.assume_base(&loaded);
        self.loaded(&loaded, items);
        Ok(())
    }

    /// Load program text (named `name` in messages) into the base context.
    /// Warnings are kept for [`Session::take_warnings`].  A predicate the
    /// text defines replaces the prelude's predicate of the same name and
    /// arity (the prelude's clauses are no longer tried).
    ///
    /// ```
    /// let mut s = lolli::Session::new();
    /// s.load_str("mine", "member X (X :: _).").unwrap();
    /// // Only the user's `member` runs: it finds the first element only.
    /// assert_eq!(s.query("member X (a :: b :: nil)").unwrap().count(), 1);
    /// ```
    pub fn load_str(&mut self, name: &str, text: &str) -> Result<(), Vec<Error>> {
        let (loaded, items) = self.compile_str(name, text)?;
        self.assume_base(&loaded);
        self.loaded(&loaded, Some(items));
        Ok(())
    }

    /// Add clauses (program text, each ending in `.`; the last `.` may be
    /// left out) to the base context as unbounded clauses.  Like every
    /// load, the text is assumed over what was loaded before: its clauses
    /// are tried before earlier ones of the same predicate (within one
    /// text they keep their order), so a program added one clause at a
    /// time is searched in the reverse order of the same program loaded
    /// as one text.
    ///
    /// ```
    /// let mut s = lolli::Session::new();
    /// s.add_clause("edge a b").unwrap();
    /// s.add_clause("path X Y :- edge X Y.").unwrap();
    /// assert_eq!(s.query("path a Y").unwrap().next().unwrap().unwrap().to_string(), "Y = b");
    /// // The clause added last is tried first.
    /// s.add_clause("edge a c").unwrap();
    /// assert_eq!(s.query("path a Y").unwrap().next().unwrap().unwrap().to_string(), "Y = c");
    /// ```
    pub fn add_clause(&mut self, text: &str) -> Result<(), Vec<Error>> {
        let text = with_final_stop(text);
        self.load_str("<clause>", &text)
    }

    /// Add linear resources (clauses, each ending in `.`; the last `.` may be
    /// left out) to the base context: every query must then consume them
    /// (or `erase` them), as if each were declared `LINEAR`.
    ///
    /// ```
    /// let mut s = lolli::Session::new();
    /// s.add_resource("coin 5. coin 10").unwrap();
    /// // Each coin is used exactly once, by every query.
    /// let a = s.query("coin X, coin Y").unwrap().next().unwrap().unwrap();
    /// assert_eq!(a.to_string(), "X = 5, Y = 10");
    /// assert!(s.query("coin X").unwrap().next().is_none());
    /// ```
    pub fn add_resource(&mut self, text: &str) -> Result<(), Vec<Error>> {
        let text = with_final_stop(text);
        let (mut loaded, items) = self.compile_str("<resource>", &text)?;
        let mut module = (*loaded.module).clone();
        for c in &mut module.clauses {
            c.linear = true;
        }
        loaded.module = std::rc::Rc::new(module);
        self.assume_base(&loaded);
        self.loaded(&loaded, Some(items));
        Ok(())
    }

    /// Register a predicate written in Rust as `name/arity`.  When a goal
    /// `name A1 ... An` is called, `f` gets the arguments as [`Value`]s and
    /// answers `Ok(None)` to fail, `Ok(Some(values))` to succeed once after
    /// unifying each argument with its value (a [`Value::Var`] is a fresh
    /// variable), or `Err(message)` for a runtime error.  It consumes no
    /// linear resource, and takes precedence over clauses of the same name
    /// and arity.
    ///
    /// ```
    /// use lolli::{Session, Value};
    /// let mut s = Session::new();
    /// s.register_builtin("double", 2, Box::new(|args: &[Value]| match args[0] {
    ///     Value::Int(n) => Ok(Some(vec![Value::Int(n), Value::Int(2 * n)])),
    ///     _ => Err("double: the first argument must be an integer".to_string()),
    /// }));
    /// let a = s.query("double 21 X").unwrap().next().unwrap().unwrap();
    /// assert_eq!(a.value("X"), Some(&Value::Int(42)));
    /// assert!(s.query("double 2 5").unwrap().next().is_none());
    /// assert!(s.query("double a X").unwrap().next().unwrap().is_err());
    /// ```
    pub fn register_builtin(&mut self, name: &str, arity: u32, f: ForeignFn) {
        let s = self.machine.symbols.intern(name);
        self.machine.foreign.register(s, arity, f);
    }

    /// Memoize the failures of the predicates named `name` (at every
    /// arity), as a `MEMO` declaration in a loaded file does (LANGUAGE.md,
    /// section 10).  `origin` says in messages where it was asked for (the
    /// command-line option or the top-level command).  The result is the
    /// advice a declaration would get: W006 when the predicate's search can
    /// run a built-in with side effects, W007 when nothing defines it; an
    /// error (and nothing memoized) when `name` is not a predicate name.
    ///
    /// ```
    /// let mut s = lolli::Session::new();
    /// s.load_str("walk", "step a b. step b a. reach X X. reach X Z :- step X Y, reach Y Z.").unwrap();
    /// assert!(s.memoize("reach", "--memo").unwrap().is_empty());
    /// assert_eq!(s.memoize("reahc", "--memo").unwrap()[0].kind.code(), "W007");
    /// assert!(s.memoize("Reach", "--memo").is_err());
    /// ```
    pub fn memoize(&mut self, name: &str, origin: &str) -> Result<Vec<Warning>, Error> {
        let Some(pred) = predicate_name(name) else {
            let mut notes = vec![
                "a predicate name starts with a lower-case letter, or is quoted ('like this')"
                    .to_string(),
            ];
            // `jump/1`, as Prolog writes a predicate with its arity.
            if let Some((bare, _)) = name
                .rsplit_once('/')
                .filter(|(b, _)| predicate_name(b).is_some())
            {
                notes.push(format!(
                    "memoization applies to a name at every arity: write `{}`",
                    bare.trim()
                ));
            }
            return Err(Error::Load {
                file: None,
                span: 0..0,
                message: format!("{origin} {name}: `{name}` is not a predicate name"),
                notes,
            });
        };
        let file = self.machine.sources.add(format!("<{origin}>"), name);
        let programs = self.loaded_programs();
        let sources: Vec<&[crate::syntax::Item]> = programs.iter().map(|p| p.as_slice()).collect();
        let sym = self.machine.symbols.intern(&pred);
        let defined = self.machine.context_defines(sym, None);
        let warnings = crate::logic::warnings::memo_command(
            &pred,
            file,
            0..name.len(),
            &sources,
            &mut self.module_reader(),
            defined,
        );
        self.machine.memoize(&pred);
        Ok(warnings)
    }

    /// Check a predicate given to `--moves` or `:moves` (`origin`), written
    /// `name` or `name/arity`: the predicate as
    /// [`crate::proof::moves::moves`] takes it, and W008 when no clause
    /// defines it (at that arity) in the loaded programs, the modules they
    /// name, the running context or `goals` (the goals about to run, as
    /// text); an error when `text` names no predicate.
    ///
    /// ```
    /// let mut s = lolli::Session::new();
    /// s.load_str("t", "take a. take b.").unwrap();
    /// assert!(s.moves_predicate("take/1", "--moves", &[]).unwrap().1.is_empty());
    /// assert_eq!(s.moves_predicate("take/2", "--moves", &[]).unwrap().1[0].kind.code(), "W008");
    /// assert!(s.moves_predicate("Take", "--moves", &[]).is_err());
    /// ```
    pub fn moves_predicate(
        &mut self,
        text: &str,
        origin: &str,
        goals: &[&str],
    ) -> Result<(String, Vec<Warning>), Error> {
        let with_arity = text.rsplit_once('/').and_then(|(name, n)| {
            let n = n.trim();
            let digits = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
            Some((
                predicate_name(name)?,
                Some(n.parse::<u32>().ok().filter(|_| digits)?),
            ))
        });
        let Some((name, arity)) = with_arity.or_else(|| Some((predicate_name(text)?, None))) else {
            return Err(Error::Load {
                file: None,
                span: 0..0,
                message: format!("{origin} {text}: `{text}` is not a predicate name"),
                notes: vec![
                    "write a predicate name (it starts with a lower-case letter, or is quoted \
                     ('like this')), or `name/arity` for one arity"
                        .to_string(),
                ],
            });
        };
        let spec = match arity {
            Some(n) => format!("{name}/{n}"),
            None => name.clone(),
        };
        let file = self.machine.sources.add(format!("<{origin}>"), text);
        let programs = self.loaded_programs();
        let sources: Vec<&[crate::syntax::Item]> = programs.iter().map(|p| p.as_slice()).collect();
        let goals: Vec<crate::syntax::Term> = goals
            .iter()
            .filter_map(|g| crate::syntax::parse_goal(g).ok())
            .collect();
        let sym = self.machine.symbols.intern(&name);
        let defined = self.machine.context_defines(sym, arity);
        let warnings = crate::logic::warnings::moves_command(
            (&name, arity),
            (origin, text),
            file,
            0..text.len(),
            &sources,
            &goals,
            &mut self.module_reader(),
            defined,
        );
        Ok((spec, warnings.into_iter().collect()))
    }

    /// Every loaded program's items (for the checks of `--memo` and
    /// `--moves`, which look at the text as written).
    fn loaded_programs(&self) -> Vec<Parsed> {
        self.checked
            .iter()
            .chain(&self.unchecked)
            .map(|&f| self.items_of(f))
            .collect()
    }

    /// The items of loaded source `f`: those kept from its loading, else
    /// parsed again from its text.
    fn items_of(&self, f: FileId) -> Parsed {
        if let Some((_, items)) = self.parsed.iter().find(|(g, _)| *g == f) {
            return items.clone();
        }
        let text = self.machine.sources.get(f).map_or("", |f| f.text.as_str());
        std::rc::Rc::new(crate::syntax::parse_program(text).0)
    }

    /// Reads a module's items by its name on the search path (for the
    /// warnings' analysis, which follows the modules a program names).
    fn module_reader(&self) -> impl FnMut(&str) -> Option<Vec<crate::syntax::Item>> {
        let dirs = self.machine.options.search_path.clone();
        let limit = self.machine.options.max_memory;
        move |name: &str| {
            let path = find_module(name, &dirs).ok()?;
            let bytes = crate::engine::machine::modules::read_source(&path, limit).ok()?;
            let text = String::from_utf8(bytes).ok()?;
            Some(crate::syntax::parse_program(&text).0)
        }
    }

    fn compile_str(&mut self, name: &str, text: &str) -> Result<(Loaded, Parsed), Vec<Error>> {
        let file = self.machine.sources.add(name, text);
        let stem = module_name_of(Path::new(name));
        self.machine.compile_parsed(text, file, &stem, None)
    }

    /// Note a source loaded into the base, with its parsed items if they
    /// are at hand, for the next [`Session::take_warnings`].
    fn loaded(&mut self, loaded: &Loaded, items: Option<Parsed>) {
        let file = loaded.module.file;
        if !self.checked.contains(&file) && !self.unchecked.contains(&file) {
            self.unchecked.push(file);
            if let Some(items) = items {
                self.parsed.push((file, items));
            }
        }
    }

    /// The warnings about the sources loaded since the last call (see
    /// [`crate::logic::warnings`]), judged with every source loaded so far
    /// and the modules they name.  Load several files, then take the
    /// warnings once, so that calls from one file to another are understood.
    pub fn take_warnings(&mut self) -> Vec<Warning> {
        let fresh: Vec<(FileId, Parsed)> = self
            .unchecked
            .iter()
            .map(|&f| (f, self.items_of(f)))
            .collect();
        let old: Vec<Parsed> = self.checked.iter().map(|&f| self.items_of(f)).collect();
        let checked: Vec<(FileId, &[crate::syntax::Item])> = fresh
            .iter()
            .map(|(f, items)| (*f, items.as_slice()))
            .collect();
        let context: Vec<&[crate::syntax::Item]> = old.iter().map(|i| i.as_slice()).collect();
        let foreign = self.machine.foreign.predicates();
        let external: Vec<(&str, u32)> = foreign
            .iter()
            .map(|&(f, n)| (self.machine.symbols.name(f), n))
            .collect();
        let mut warnings =
            crate::logic::warnings::check(&checked, &context, &external, &mut self.module_reader());
        self.checked.append(&mut self.unchecked);
        for w in &mut warnings {
            self.hint_missing_full_stop(w);
        }
        warnings
    }

    /// A call that nothing defines with its number of arguments, and that
    /// runs on from one line into the next, is most often two clauses with
    /// the `.` between them forgotten (`p X :- q X` then `q a.` reads as
    /// `p X :- q X q a.`): say so.
    fn hint_missing_full_stop(&self, w: &mut Warning) {
        use crate::diagnostics::WarningKind::{ArityMismatch, UnknownPredicate};
        if !matches!(w.kind, UnknownPredicate | ArityMismatch) {
            return;
        }
        let Some(text) = self
            .machine
            .sources
            .get(w.file)
            .and_then(|f| f.text.get(w.span.clone()))
        else {
            return;
        };
        let Some(nl) = text.find('\n') else {
            return;
        };
        // A line that ends inside brackets, or after a comma or an
        // operator, goes on by design.
        let first = text[..nl].trim_end();
        let opens = first.matches(['(', '[']).count() > first.matches([')', ']']).count();
        if opens || first.ends_with(|c: char| c == ',' || c.is_ascii_punctuation() && c != ')') {
            return;
        }
        let line = self.machine.sources.line(w.file, w.span.start + nl);
        w.notes.push(format!(
            "this call runs on past the end of line {line}: if a clause ends there, \
             its `.` is missing"
        ));
    }

    /// Render warnings as the command line prints them (as errors for `-W error`).
    pub fn render_warnings(
        &self,
        warnings: &[Warning],
        severity: crate::diagnostics::Severity,
    ) -> String {
        crate::diagnostics::render_warnings(&self.machine.sources, warnings, severity)
    }

    fn assume_base(&mut self, loaded: &Loaded) {
        self.shadow_prelude(loaded);
        self.assume_module_base(loaded);
    }

    /// Switch off the prelude entries for predicates `loaded` defines.
    fn shadow_prelude(&mut self, loaded: &Loaded) {
        if self.prelude.is_empty() {
            return;
        }
        let defined: Vec<(SymId, u32)> = loaded
            .module
            .clauses
            .iter()
            .flat_map(|c| c.template.keys.iter().map(|(p, _)| *p))
            .collect();
        let m = &mut self.machine;
        for (e, preds) in &self.prelude {
            if preds.iter().any(|p| defined.contains(p)) {
                m.ctx.set_state(&mut m.store.trail, *e, GONE);
            }
        }
    }

    fn preds_of_entry(&self, e: u32) -> Vec<(SymId, u32)> {
        match self.machine.ctx.entries.get(e as usize).map(|en| en.source) {
            Some(Source::Template { tpl, .. }) => self
                .machine
                .templates
                .get(tpl as usize)
                .map(|t| t.keys.iter().map(|(p, _)| *p).collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    fn assume_module_base(&mut self, loaded: &Loaded) -> (u32, u32) {
        let m = &mut self.machine;
        let args: Vec<Cell> = loaded
            .module
            .params
            .iter()
            .map(|_| m.store.heap.new_var())
            .collect();
        let range = m.assume_module(loaded, &args, NONE);
        if m.depth() == 0 {
            // Nothing can undo the base: its trail entries are not needed.
            m.store.trail.entries.clear();
        }
        range
    }

    /// Parse a goal and start it; the query yields answers on demand.
    ///
    /// ```
    /// let mut s = lolli::Session::new();
    /// let mut q = s.query("member X (1 :: 2 :: nil)").unwrap();
    /// assert_eq!(q.next_answer().unwrap().unwrap().to_string(), "X = 1");
    /// assert_eq!(q.next_answer().unwrap().unwrap().to_string(), "X = 2");
    /// assert!(q.next_answer().unwrap().is_none());
    /// ```
    pub fn query(&mut self, goal: &str) -> Result<Query<'_>, Error> {
        let p = self.prepare(goal)?;
        Ok(self.start(p))
    }

    /// Say where the next goal given to [`Session::prepare`] was read, so
    /// that its messages give that position (`<stdin>:12:5`) rather than
    /// one in the goal alone (`<goal>:1:5`).  Only the next goal: the
    /// position is forgotten once a goal is prepared.
    pub fn next_goal_at(&mut self, at: GoalAt) {
        self.next_goal_at = Some(at);
    }

    /// Parse a goal and build its term, without starting it.
    ///
    /// ```
    /// let mut s = lolli::Session::new();
    /// let p = s.prepare("X = 1").unwrap();
    /// assert_eq!(s.start(p).count(), 1);
    /// assert!(s.prepare("X = ").is_err());
    /// ```
    pub fn prepare(&mut self, goal: &str) -> Result<Prepared, Error> {
        let (file, padded);
        let goal = match self.next_goal_at.take() {
            // Indented to its column, numbered from its line: spans in the
            // goal then say where it was read.
            Some(at) => {
                padded = format!("{:1$}{goal}", "", at.column);
                file = self
                    .machine
                    .sources
                    .add_at(at.name, padded.as_str(), at.line);
                padded.as_str()
            }
            None => {
                file = self.machine.sources.add("<goal>", goal);
                goal
            }
        };
        let ast = crate::syntax::parse_goal(goal).map_err(|e| Error::Syntax {
            file,
            span: e.span,
            message: e.message,
            expected: e.expected,
            hint: e.hint,
        })?;
        let (cell, vars) = self
            .machine
            .build_term_named(&ast)
            .map_err(|m| Error::Load {
                file: Some(file),
                span: ast.span.clone(),
                message: m,
                notes: Vec::new(),
            })?;
        Ok(Prepared {
            cell,
            vars,
            file,
            ast,
        })
    }

    /// Warnings W002 and W003 about prepared goal `p`: the calls in it that
    /// nothing can provide (see [`crate::logic::warnings::goal_check`]),
    /// judged with the running context, the goal's own assumptions and the
    /// modules it names.  `names` gives the predicate names a misspelling
    /// may mean; of those, the texts fresh symbols print with (a `LOCAL`
    /// name's or a `forall` constant's, `p_1`) are never offered, as typing
    /// one names another symbol.
    ///
    /// ```
    /// let mut s = lolli::Session::new();
    /// s.load_str("t", "nat z. nat (s X) :- nat X.").unwrap();
    /// let p = s.prepare("nat z, nta X").unwrap();
    /// let w = s.goal_warnings(&p, &|| vec!["nat".to_string()]);
    /// assert_eq!(w.len(), 1);
    /// assert_eq!(w[0].kind.code(), "W002");
    /// let p = s.prepare("(nta z -o nta X), nat z").unwrap();
    /// assert!(s.goal_warnings(&p, &Vec::new).is_empty());
    /// // A clause from a variable may define anything.
    /// let p = s.prepare("nat C, C => nta X").unwrap();
    /// assert!(s.goal_warnings(&p, &Vec::new).is_empty());
    /// ```
    pub fn goal_warnings(&self, p: &Prepared, names: &dyn Fn() -> Vec<String>) -> Vec<Warning> {
        let m = &self.machine;
        // Predicates written in Rust count as defined.
        let context = |name: &str| match m.symbols.lookup(name) {
            Some(sym) => {
                let mut found = m.ctx.arities(sym);
                found.extend(m.foreign.arities(sym));
                found
            }
            None => Vec::new(),
        };
        let local = |name: &str, arity: u32| {
            m.symbols
                .fresh_of(name)
                .into_iter()
                .any(|sym| m.ctx.arities(sym).contains(&arity))
        };
        let typeable = || {
            let mut found = names();
            found.retain(|n| !m.symbols.is_fresh_text(n));
            found
        };
        crate::logic::warnings::goal_check(
            &p.ast,
            p.file,
            &context,
            &typeable,
            &local,
            &mut self.module_reader(),
        )
    }

    /// Start a prepared goal.
    ///
    /// ```
    /// let mut s = lolli::Session::new();
    /// let p = s.prepare("between 1 3 X").unwrap();
    /// let xs: Vec<String> = s.start(p).map(|a| a.unwrap().to_string()).collect();
    /// assert_eq!(xs, ["X = 1", "X = 2", "X = 3"]);
    /// ```
    pub fn start(&mut self, p: Prepared) -> Query<'_> {
        self.machine.start_query(p.cell, p.vars.clone());
        Query {
            session: self,
            vars: p.vars,
            started: false,
            finished: false,
        }
    }

    /// Render errors as the command line prints them.
    ///
    /// ```
    /// let mut s = lolli::Session::new();
    /// let errors = s.load_str("bad", "p :- .").unwrap_err();
    /// assert!(s.render(&errors).contains("bad"));
    /// ```
    pub fn render(&self, errors: &[Error]) -> String {
        render(&self.machine.sources, errors)
    }
}

/// The error for a program file that is not there: where it was looked
/// for, and a near file name if the directory has one.
fn missing_file(path: &Path) -> Error {
    let parent = path.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = parent.unwrap_or(Path::new(".")).to_path_buf();
    let shown = path.display();
    let mut notes = Vec::new();
    let message = if path.is_dir() {
        format!("`{shown}` is a directory, not a program file")
    } else {
        notes.push(format!("looked in the directory `{}`", dir.display()));
        format!("cannot find the program file `{shown}`")
    };
    let with_ext: Vec<String> = ["lolli", "ll"]
        .iter()
        .map(|e| format!("{shown}.{e}"))
        .filter(|p| Path::new(p).is_file())
        .collect();
    if let Some(p) = with_ext.first() {
        notes.push(format!("did you mean `{p}`?"));
    } else if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| n.ends_with(".lolli") || n.ends_with(".ll"))
            .collect();
        files.sort();
        // Compared without their extensions, so that `dir.lolli` is not
        // "near" `a1.lolli` because of the `.lolli` they share.
        let stem = |n: &str| -> String {
            n.strip_suffix(".lolli")
                .or_else(|| n.strip_suffix(".ll"))
                .unwrap_or(n)
                .to_string()
        };
        let stems: Vec<String> = files.iter().map(|f| stem(f)).collect();
        let near = crate::util::nearest(&stem(name), &stems)
            .and_then(|s| stems.iter().position(|t| t == s))
            .map(|i| files[i].as_str());
        if let Some(near) = near {
            let near = parent.map_or(near.into(), |d| d.join(near));
            notes.push(format!("did you mean `{}`?", near.display()));
        }
    }
    Error::Load {
        file: None,
        span: 0..0,
        message,
        notes,
    }
}

/// A parsed goal, ready to start (see [`Session::prepare`]).
#[derive(Clone, Debug)]
pub struct Prepared {
    cell: Cell,
    vars: Vec<(String, Cell)>,
    /// The source holding the goal's text.
    file: FileId,
    /// The goal as parsed, for [`Session::goal_warnings`].
    ast: crate::syntax::Term,
}

impl Prepared {
    /// The goal term and its named variables (name, heap variable), in
    /// order of first appearance.
    pub fn into_parts(self) -> (Cell, Vec<(String, Cell)>) {
        (self.cell, self.vars)
    }
}

/// The answer the machine holds now, for a goal with these named variables:
/// a variable left unbound is shown by the first query name that reaches
/// it, and a variable that shows as itself is left out.
pub fn answer_of(m: &Machine, vars: &[(String, Cell)]) -> Answer {
    answer_with(m, vars, true)
}

/// [`answer_of`] for printing only: its `values`, which only an embedding
/// reads, are left empty (building and dropping them for each of
/// census's 137,846 answers was 0.9 % of its instructions).
pub(crate) fn answer_printed(m: &Machine, vars: &[(String, Cell)]) -> Answer {
    answer_with(m, vars, false)
}

fn answer_with(m: &Machine, vars: &[(String, Cell)], with_values: bool) -> Answer {
    let p = crate::pretty::Printer::new(m);
    for (name, v) in vars {
        if p.is_unbound(*v) {
            p.name_var(*v, name);
        }
    }
    let mut bindings = Vec::new();
    let mut values = Vec::new();
    for (name, v) in vars {
        let shown = p.binding(*v);
        if &shown != name {
            bindings.push((name.clone(), shown));
        }
        if with_values {
            values.push((name.clone(), value_of(m, &p, *v)));
        }
    }
    Answer { bindings, values }
}

/// A running query.  Dropping it undoes everything it did.  It is an
/// iterator of answers (errors end it), computed one at a time on demand.
///
/// ```
/// let mut s = lolli::Session::new();
/// let q = s.query("append X Y (a :: nil)").unwrap();
/// let all: Vec<String> = q.map(|a| a.unwrap().to_string()).collect();
/// assert_eq!(all, ["X = nil, Y = a :: nil", "X = a :: nil, Y = nil"]);
/// ```
pub struct Query<'s> {
    session: &'s mut Session,
    vars: Vec<(String, Cell)>,
    started: bool,
    finished: bool,
}

impl Query<'_> {
    /// The next outcome of the search.
    ///
    /// ```
    /// use lolli::{Outcome, Session};
    /// let mut s = Session::new();
    /// let mut q = s.query("fail").unwrap();
    /// assert_eq!(q.next_outcome().unwrap(), Outcome::NoMore);
    /// ```
    pub fn next_outcome(&mut self) -> Result<Outcome, Error> {
        if self.finished {
            return Ok(Outcome::NoMore);
        }
        let m = &mut self.session.machine;
        let ev = if self.started {
            m.next_answer()
        } else {
            m.run()
        };
        self.started = true;
        let ev = ev.inspect_err(|_| self.finished = true)?;
        Ok(match ev {
            Event::Answer => Outcome::Answer(self.answer()),
            Event::Exhausted => {
                self.finished = true;
                Outcome::NoMore
            }
            Event::Top => Outcome::Top,
            Event::Pop => Outcome::Pop,
            Event::PopAll => Outcome::PopAll,
            Event::Bye => Outcome::Bye,
            Event::Abort => Outcome::Abort,
            // Only a machine of a parallel search pauses; a session's
            // never joins one.
            Event::Paused => {
                self.finished = true;
                return Err(crate::diagnostics::RuntimeError::new(
                    "internal error: a query paused",
                )
                .into());
            }
        })
    }

    /// The next answer (`None` when there are no more; `top`, `pop` and the
    /// like end the query).
    ///
    /// ```
    /// let mut s = lolli::Session::new();
    /// let mut q = s.query("X = 1 ; X = 2").unwrap();
    /// assert_eq!(q.next_answer().unwrap().unwrap().to_string(), "X = 1");
    /// assert_eq!(q.next_answer().unwrap().unwrap().to_string(), "X = 2");
    /// assert_eq!(q.next_answer().unwrap(), None);
    /// ```
    pub fn next_answer(&mut self) -> Result<Option<Answer>, Error> {
        match self.next_outcome()? {
            Outcome::Answer(a) => Ok(Some(a)),
            _ => {
                self.finished = true;
                Ok(None)
            }
        }
    }

    /// The bindings of the current answer (after `next_outcome` returned
    /// one).
    ///
    /// ```
    /// use lolli::{Outcome, Session};
    /// let mut s = Session::new();
    /// let mut q = s.query("X = a").unwrap();
    /// assert!(matches!(q.next_outcome().unwrap(), Outcome::Answer(_)));
    /// assert_eq!(q.answer().to_string(), "X = a");
    /// ```
    pub fn answer(&self) -> Answer {
        answer_of(&self.session.machine, &self.vars)
    }

    /// The derivation of the current answer, when proof recording is on
    /// (`session.machine.options.proofs = true` before starting the query);
    /// `None` when nothing was recorded.  Variables print as in [`Query::answer`].
    pub fn proof(&mut self) -> Option<crate::proof::Proof> {
        crate::proof::build(&mut self.session.machine, &self.vars)
    }

    /// The session this query runs in.
    ///
    /// ```
    /// let mut s = lolli::Session::new();
    /// let mut q = s.query("true").unwrap();
    /// assert_eq!(q.session().machine.depth(), 1);
    /// ```
    pub fn session(&mut self) -> &mut Session {
        self.session
    }

    /// The machine this query runs on (for proofs and statistics).
    ///
    /// ```
    /// let mut s = lolli::Session::new();
    /// let mut q = s.query("member X (a :: nil)").unwrap();
    /// q.next_answer().unwrap();
    /// assert!(q.machine().inferences > 0);
    /// ```
    pub fn machine(&self) -> &Machine {
        &self.session.machine
    }
}

impl Iterator for Query<'_> {
    type Item = Result<Answer, Error>;

    /// The next answer; `None` when there are no more (or the goal called a
    /// top-level command such as `top`).  After an error the query ends.
    fn next(&mut self) -> Option<Self::Item> {
        self.next_answer().transpose()
    }
}

impl Drop for Query<'_> {
    fn drop(&mut self) {
        self.session.machine.flush_outputs();
        self.session.machine.end_query();
    }
}

/// Program text with a final `.` (added when missing).
fn with_final_stop(text: &str) -> String {
    let t = text.trim_end();
    if t.ends_with('.') {
        t.to_string()
    } else {
        format!("{t}.")
    }
}
