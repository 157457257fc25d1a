//! The embedding API: a session holds a loaded program; a query yields its
//! answers lazily.
//!
//! ```
//! use lolli::Session;
//! let mut s = Session::new();
//! s.load_str("colours", "LINEAR red. LINEAR blue.\nboth :- red, blue.").unwrap();
//! let mut q = s.query("both").unwrap();
//! assert_eq!(q.next_answer().unwrap().unwrap().to_string(), "yes");
//! assert!(q.next_answer().unwrap().is_none());
//! ```

use std::fmt;
use std::path::Path;

use crate::diagnostics::{render, Error, Warning};
use crate::engine::machine::{Loaded, NONE};
use crate::engine::{Event, Host, Machine, Options, StdHost};
use crate::logic::module::{find_module, module_name_of};
use crate::source::FileId;
use crate::term::Cell;

/// One answer: the bindings of the query's named variables, printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// `(name, printed value)` in order of first appearance in the query;
    /// variables left unbound are omitted.
    pub bindings: Vec<(String, String)>,
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
pub struct Session {
    /// The machine (public for the REPL, the proof printers and tests).
    pub machine: Machine,
    /// Sources loaded into the base whose warnings were already taken.
    checked: Vec<FileId>,
    /// Sources loaded into the base whose warnings are still to be taken.
    unchecked: Vec<FileId>,
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

impl Session {
    /// A session with default options, printing to stdout.
    pub fn new() -> Self {
        Session::with_options(Options::default(), Box::new(StdHost))
    }

    /// A session with options and an I/O host.
    pub fn with_options(mut options: Options, host: Box<dyn Host>) -> Self {
        if options.search_path.is_empty() {
            options.search_path.push(".".into());
        }
        Session {
            machine: Machine::new(options, host),
            checked: Vec::new(),
            unchecked: Vec::new(),
        }
    }

    /// Load a program file into the base context (its `LINEAR` clauses become
    /// linear resources every query must consume).  A `MODULE` declaration
    /// in it must agree with the file name.  Warnings are kept for
    /// [`Session::take_warnings`].
    pub fn load_file(&mut self, path: impl AsRef<Path>) -> Result<(), Vec<Error>> {
        let path = path.as_ref();
        if !path.is_file() {
            return Err(vec![missing_file(path)]);
        }
        let stem = module_name_of(path);
        let loaded = self.machine.module_at(path, Some(&stem))?;
        self.assume_base(&loaded);
        self.loaded(loaded.module.file);
        Ok(())
    }

    /// Load program text (named `name` in messages) into the base context.
    /// Warnings are kept for [`Session::take_warnings`].
    pub fn load_str(&mut self, name: &str, text: &str) -> Result<(), Vec<Error>> {
        let file = self.machine.sources.add(name, text);
        let stem = module_name_of(Path::new(name));
        let loaded = self.machine.compile_text(text, file, &stem, None)?;
        self.assume_base(&loaded);
        self.loaded(file);
        Ok(())
    }

    fn loaded(&mut self, file: FileId) {
        if !self.checked.contains(&file) && !self.unchecked.contains(&file) {
            self.unchecked.push(file);
        }
    }

    /// The warnings about the sources loaded since the last call (see
    /// [`crate::logic::warnings`]), judged with every source loaded so far
    /// and the modules they name.  Load several files, then take the
    /// warnings once, so that calls from one file to another are understood.
    pub fn take_warnings(&mut self) -> Vec<Warning> {
        let parse = |s: &Session, f: FileId| {
            let text = s.machine.sources.get(f).map_or("", |f| f.text.as_str());
            crate::syntax::parse_program(text).0
        };
        let checked: Vec<(FileId, Vec<crate::syntax::Item>)> = self
            .unchecked
            .iter()
            .map(|&f| (f, parse(self, f)))
            .collect();
        let context: Vec<Vec<crate::syntax::Item>> =
            self.checked.iter().map(|&f| parse(self, f)).collect();
        let dirs = self.machine.options.search_path.clone();
        let mut read_module = |name: &str| {
            let path = find_module(name, &dirs).ok()?;
            let text = std::fs::read_to_string(path).ok()?;
            Some(crate::syntax::parse_program(&text).0)
        };
        let warnings = crate::logic::warnings::check(&checked, &context, &mut read_module);
        self.checked.append(&mut self.unchecked);
        warnings
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
        let m = &mut self.machine;
        let args: Vec<Cell> = loaded
            .module
            .params
            .iter()
            .map(|_| m.store.heap.new_var())
            .collect();
        m.assume_module(loaded, &args, NONE);
        if m.depth() == 0 {
            // Nothing can undo the base: its trail entries are not needed.
            m.store.trail.entries.clear();
        }
    }

    /// Parse a goal and start it; the query yields answers on demand.
    pub fn query(&mut self, goal: &str) -> Result<Query<'_>, Error> {
        let p = self.prepare(goal)?;
        Ok(self.start(p))
    }

    /// Parse a goal and build its term, without starting it.
    pub fn prepare(&mut self, goal: &str) -> Result<Prepared, Error> {
        let file = self.machine.sources.add("<goal>", goal);
        let ast = crate::syntax::parse_goal(goal).map_err(|e| Error::Syntax {
            file,
            span: e.span,
            message: e.message,
            expected: e.expected,
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
        Ok(Prepared { cell, vars })
    }

    /// Start a prepared goal.
    pub fn start(&mut self, p: Prepared) -> Query<'_> {
        self.machine.start_query(p.cell);
        Query {
            session: self,
            vars: p.vars,
            started: false,
            finished: false,
        }
    }

    /// Render errors as the command line prints them.
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
        if let Some(near) = crate::util::nearest(name, &files) {
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

/// A parsed goal, ready to start.
#[derive(Clone, Debug)]
pub struct Prepared {
    cell: Cell,
    vars: Vec<(String, Cell)>,
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
    let p = crate::pretty::Printer::new(m);
    for (name, v) in vars {
        if p.is_unbound(*v) {
            p.name_var(*v, name);
        }
    }
    let mut bindings = Vec::new();
    for (name, v) in vars {
        let shown = p.binding(*v);
        if &shown != name {
            bindings.push((name.clone(), shown));
        }
    }
    Answer { bindings }
}

/// A running query.  Dropping it undoes everything it did.
pub struct Query<'s> {
    session: &'s mut Session,
    vars: Vec<(String, Cell)>,
    started: bool,
    finished: bool,
}

impl Query<'_> {
    /// The next outcome of the search.
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
        })
    }

    /// The next answer (`None` when there are no more; `top`, `pop` and the
    /// like end the query).
    pub fn next_answer(&mut self) -> Result<Option<Answer>, Error> {
        match self.next_outcome()? {
            Outcome::Answer(a) => Ok(Some(a)),
            _ => {
                self.finished = true;
                Ok(None)
            }
        }
    }

    /// The bindings of the current answer.
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
    pub fn session(&mut self) -> &mut Session {
        self.session
    }

    /// The machine this query runs on (for proofs and statistics).
    pub fn machine(&self) -> &Machine {
        &self.session.machine
    }
}

impl Drop for Query<'_> {
    fn drop(&mut self) {
        self.session.machine.flush_outputs();
        self.session.machine.end_query();
    }
}
