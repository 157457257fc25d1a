//! The search: Lolli's proof rules run by an abstract machine with its own
//! stacks (never the Rust call stack), undoing by trail.
//!
//! The resource semantics is the input/output model with lazy `erase` of
//! Cervesato, Hodas and Pfenning ("Efficient Resource Management for Linear
//! Logic Proof Search", the RM3 system), in the form Lolli 0.94 implements.
//! A goal runs in the current context; consuming a linear resource marks its
//! entry `GONE`; the *slack* register records whether an `erase` has been
//! proved since the start of the enclosing scope (Lolli's "top flag"), and
//! then resources left over at the end of the scope count as erased.  Where
//! Lolli tests strictness at every leaf, this machine checks at the end of
//! each scope (`D -o G`, the query, the second conjunct of `&`); the proofs
//! found, and their order, are the same.
//!
//! The rules, as the machine runs them:
//! - `true`: nothing.  `erase`: set slack.  `G1 , G2`: G1 then G2 (slack accumulates).
//! - `D -o G` / `D => G` (`G :- D` / `G <= D`): push D's clauses as linear
//!   (resp. unbounded) entries, prove G with slack cleared, then every linear
//!   entry of D must be consumed unless G's slack is set; the entries leave.
//! - `G1 & G2`: prove G1 (slack cleared); the resources it consumed (C1) are
//!   made usable again for G2 and, if G1 had no slack, G2 may use nothing
//!   else; after G2 every resource of C1 must be consumed again (unless G2
//!   has slack).  Slack of the whole: both had slack.
//! - `{G}`: prove G with every linear resource hidden; no slack.
//! - atom: try every usable entry whose head may match, newest first; a linear
//!   entry is consumed when used; then prove the clause body left to right.
//! - `G1 ; G2`, guard `G1 -> G2 | G3`, `forall`, `exists`: as in Lolli.
//!
//! Machine state: the store (heap + trail), the context, the continuation
//! (a persistent list of frames), the choice-point stack and the proof log.
//! A choice point saves the lengths of every arena and the trail mark, so
//! backtracking is "undo the trail, truncate the arenas"; nothing is copied.

use std::io::Write as _;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::context::{Context, ContextLens, Cursor, Item, Source, GONE};
use super::store::Store;
use super::trail::Undo;
use crate::builtins::{is_connective, Builtin};
use crate::diagnostics::{Error, RuntimeError};
use crate::logic::clause::{clause_alts, split_assumed, Assumed, Body, ClauseError};
use crate::logic::keys::keys_of;
use crate::logic::module::{compile_module, find_module, module_name_of, Module};
use crate::logic::template::Template;
use crate::source::{FileId, Sources};
use crate::syntax;
use crate::term::{sym, Addr, Cell, SymId, Symbols};

/// No frame / no node.
pub const NONE: u32 = u32::MAX;

/// What a step of the machine asks of its caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The query has an answer; the machine can be asked for the next one.
    Answer,
    /// The query has no (more) answers.
    Exhausted,
    /// `top` was called: the caller may run nested queries in this state.
    Top,
    /// `pop` was called.
    Pop,
    /// `popall` was called.
    PopAll,
    /// `bye` / `exit` was called.
    Bye,
    /// `abort` was called.
    Abort,
}

/// The proof rule a proof node records.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Backchaining on a clause or using a resource.
    Atom,
    /// A built-in predicate.
    Builtin,
    /// `true`.
    One,
    /// `erase`.
    Erase,
    /// `{G}`.
    Bang,
    /// `G1 , G2`.
    Tensor,
    /// `G1 & G2`.
    With,
    /// `D -o G` (also `M --o G`).
    Lolli,
    /// `D => G`.
    Imp,
    /// `forall x \ G`.
    Forall,
    /// `exists x \ G`.
    Exists,
    /// Left side of `;`.
    OrLeft,
    /// Right side of `;`.
    OrRight,
    /// `G1 -> G2 | G3`.
    Guard,
}

/// One node of the proof log.
#[derive(Copy, Clone, Debug)]
pub struct ProofNode {
    /// The parent node (`NONE` for a root).
    pub parent: u32,
    /// The rule.
    pub rule: Rule,
    /// The goal proved (a heap term; instantiated when read after the answer).
    pub goal: Cell,
    /// Atom: the entry used.  Lolli/Imp: first assumed entry.  Forall/Exists: the witness cell index.
    pub a: u32,
    /// Atom with a template: start of the slot values in `proof_slots`.  Lolli/Imp: end of assumed entries.
    pub b: u32,
}

/// The proof log of the current branch.
#[derive(Clone, Debug, Default)]
pub struct ProofLog {
    /// Nodes in the order they were made (children after parents, siblings left to right).
    pub nodes: Vec<ProofNode>,
    /// Slot values of template clause instances.
    pub slots: Vec<Cell>,
    /// Witness terms (forall/exists).
    pub witnesses: Vec<Cell>,
    /// (erase node, entry) pairs: resources an `erase` swallowed.
    pub erased: Vec<(u32, u32)>,
}

#[derive(Copy, Clone, Debug)]
enum Action {
    Solve {
        goal: Cell,
        parent: u32,
        origin: u32,
    },
    Bang {
        goal: Cell,
        parent: u32,
        origin: u32,
    },
    ExitScope {
        first: u32,
        end: u32,
        saved: u32,
    },
    WithMid {
        g2: Cell,
        node: u32,
        origin: u32,
        saved: u32,
        trail: u32,
        ctx_len: u32,
    },
    WithEnd {
        c1: u32,
        n: u32,
        v1: u32,
        saved: u32,
        restricted: bool,
    },
    BangEnd {
        saved: u32,
    },
    GuardCommit {
        choice: u32,
        then: Cell,
        node: u32,
        origin: u32,
    },
    RestoreOutput {
        output: u32,
    },
    RestoreInput {
        input: u32,
    },
    TimingEnd {
        start: u32,
        var: Cell,
    },
    QueryEnd {
        first: u32,
        end: u32,
    },
    SubEnd,
}

#[derive(Copy, Clone, Debug)]
struct Frame {
    action: Action,
    next: u32,
}

#[derive(Copy, Clone, Debug)]
enum Alternative {
    Clauses {
        goal: Cell,
        cursor: Cursor,
        parent: u32,
        origin: u32,
    },
    Goal {
        goal: Cell,
        parent: u32,
        origin: u32,
        rule: Rule,
    },
    Barrier,
}

#[derive(Copy, Clone, Debug)]
struct Choice {
    alt: Alternative,
    cont: u32,
    slack: u32,
    trail: u32,
    heap: u32,
    eigens: u32,
    frames: u32,
    ctx: ContextLens,
    aux: u32,
    nodes: u32,
    slots: u32,
    witnesses: u32,
    erased: u32,
    output: u32,
    input: u32,
}

/// The I/O the engine needs from its host (the engine itself never touches stdin/stdout).
pub trait Host {
    /// Write text to the standard output.
    fn write(&mut self, text: &str);
    /// Read one line from the standard input (`None` at end of input).
    fn read_line(&mut self) -> Option<String>;
}

/// A host that writes to a string and reads nothing; for tests and embedding.
#[derive(Clone, Debug, Default)]
pub struct BufferHost {
    /// Everything written.
    pub out: String,
    /// Lines to hand to `read`.
    pub input: std::collections::VecDeque<String>,
}

impl Host for BufferHost {
    fn write(&mut self, text: &str) {
        self.out.push_str(text);
    }
    fn read_line(&mut self) -> Option<String> {
        self.input.pop_front()
    }
}

/// A host on the process's stdin and stdout.
#[derive(Debug, Default)]
pub struct StdHost;

impl Host for StdHost {
    fn write(&mut self, text: &str) {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    }
    fn read_line(&mut self) -> Option<String> {
        let mut line = String::new();
        match std::io::stdin().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line),
        }
    }
}

/// Options that change how the machine runs.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Record proof terms.
    pub proofs: bool,
    /// Allow the `system` built-in.
    pub allow_system: bool,
    /// Directories searched for modules, in order.
    pub search_path: Vec<PathBuf>,
    /// Stop a query that nests deeper than this many goals.
    pub max_depth: Option<u32>,
    /// Stop a query at this instant.
    pub deadline: Option<Instant>,
    /// Stop a query whose stacks grow beyond this many bytes.
    pub max_memory: Option<usize>,
}

/// A loaded module: the compiled module and the ids of its templates.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The module.
    pub module: Rc<Module>,
    /// Template id of each clause.
    pub tpl_ids: Vec<u32>,
}

/// The interpreter state: program, context and search.
pub struct Machine {
    /// Names and strings.
    pub symbols: Symbols,
    /// Source texts (files and typed goals).
    pub sources: Sources,
    /// Name of each binder, by binder id.
    pub binder_names: Vec<SymId>,
    /// All clause templates, by id.
    pub templates: Vec<Rc<Template>>,
    /// Compiled modules by file path.
    pub modules: Vec<(PathBuf, Loaded)>,
    /// Options.
    pub options: Options,
    /// Heap and trail.
    pub store: Store,
    /// The context.
    pub ctx: Context,
    /// The proof log of the current branch.
    pub proof: ProofLog,
    /// Set from another thread (Ctrl-C) to stop the running query.
    pub interrupt: Arc<AtomicBool>,
    /// Calls made (atoms and built-ins), for statistics.
    pub inferences: u64,
    /// Predicates written in Rust by an embedder.
    pub foreign: super::foreign::Foreign,
    pub(crate) host: Box<dyn Host>,
    frames: Vec<Frame>,
    choices: Vec<Choice>,
    cont: u32,
    slack: u32,
    aux: Vec<u32>,
    slots: Vec<Option<Cell>>,
    scratch: Vec<Cell>,
    outputs: Vec<Box<dyn std::io::Write>>,
    output: u32,
    inputs: Vec<Box<dyn std::io::BufRead>>,
    input: u32,
    started: Vec<Instant>,
    pairs: Vec<(Cell, Cell)>,
    pub(crate) pending: Option<Event>,
}

type Step = Result<bool, RuntimeError>;

impl Machine {
    /// A machine with an empty program.
    pub fn new(options: Options, host: Box<dyn Host>) -> Self {
        Machine {
            symbols: Symbols::new(),
            sources: Sources::new(),
            binder_names: Vec::new(),
            templates: Vec::new(),
            modules: Vec::new(),
            options,
            store: Store::new(),
            ctx: Context::new(),
            proof: ProofLog::default(),
            interrupt: Arc::new(AtomicBool::new(false)),
            inferences: 0,
            foreign: Default::default(),
            host,
            frames: Vec::new(),
            choices: Vec::new(),
            cont: NONE,
            slack: 0,
            aux: Vec::new(),
            slots: Vec::new(),
            scratch: Vec::new(),
            outputs: Vec::new(),
            output: 0,
            inputs: Vec::new(),
            input: 0,
            started: Vec::new(),
            pairs: Vec::new(),
            pending: None,
        }
    }

    // ----------------------------------------------------------------
    // Modules

    /// Compile (or fetch from the cache) the module in file `path`.
    pub fn module_at(
        &mut self,
        path: &std::path::Path,
        expected: Option<&str>,
    ) -> Result<Loaded, Vec<Error>> {
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if let Some((_, l)) = self.modules.iter().find(|(p, _)| *p == key) {
            return Ok(l.clone());
        }
        let text = std::fs::read_to_string(path).map_err(|e| {
            vec![Error::load(format!(
                "cannot read `{}`: {e}",
                path.display()
            ))]
        })?;
        let file = self.sources.add(path.display().to_string(), text.clone());
        let loaded = self.compile_text(&text, file, &module_name_of(path), expected)?;
        self.modules.push((key, loaded.clone()));
        Ok(loaded)
    }

    /// Compile a program text that was added to the sources as `file`.
    pub fn compile_text(
        &mut self,
        text: &str,
        file: FileId,
        default_name: &str,
        expected: Option<&str>,
    ) -> Result<Loaded, Vec<Error>> {
        let (items, syntax_errors) = syntax::parse_program(text);
        let mut errors: Vec<Error> = syntax_errors
            .into_iter()
            .map(|e| Error::Syntax {
                file,
                span: e.span,
                message: e.message,
                expected: e.expected,
            })
            .collect();
        let (module, module_errors) = compile_module(
            &items,
            file,
            default_name,
            expected,
            &mut self.symbols,
            &mut self.binder_names,
        );
        errors.extend(module_errors.into_iter().map(|e| Error::Load {
            file: Some(file),
            span: e.span,
            message: e.message,
            notes: Vec::new(),
        }));
        if !errors.is_empty() {
            return Err(errors);
        }
        let tpl_ids = module
            .clauses
            .iter()
            .map(|c| {
                self.templates.push(c.template.clone());
                self.templates.len() as u32 - 1
            })
            .collect();
        Ok(Loaded {
            module: Rc::new(module),
            tpl_ids,
        })
    }

    /// Push the clauses of a loaded module into the context, with parameters
    /// bound to `args` and fresh local names; returns the entry range.
    pub fn assume_module(&mut self, loaded: &Loaded, args: &[Cell], node: u32) -> (u32, u32) {
        let env = self.ctx.envs.len() as u32;
        self.ctx.envs.extend_from_slice(args);
        for l in &loaded.module.locals {
            let s = self.symbols.intern(l);
            let e = self.store.heap.new_eigen(s);
            self.ctx.envs.push(e);
        }
        let first = self.ctx.entries.len() as u32;
        for (i, c) in loaded.module.clauses.iter().enumerate().rev() {
            let tpl = loaded.tpl_ids[i];
            let e = self
                .ctx
                .push_entry(c.linear, Source::Template { tpl, env }, node);
            for (k, (pred, keys)) in c.template.keys.iter().enumerate() {
                self.ctx
                    .index(&mut self.store.trail, e, k as u32, *pred, keys);
            }
        }
        (first, self.ctx.entries.len() as u32)
    }

    /// Resolve a module name against the search path and load it.
    fn find_and_load(&mut self, name: &str) -> Result<Loaded, RuntimeError> {
        match find_module(name, &self.options.search_path) {
            Ok(path) => self.module_at(&path, Some(name)).map_err(|errs| {
                let mut e = RuntimeError::new(format!("module `{name}` could not be loaded"));
                for err in &errs {
                    e.notes.push(crate::diagnostics::render(
                        &self.sources,
                        std::slice::from_ref(err),
                    ));
                }
                e
            }),
            Err(tried) => {
                let mut e = RuntimeError::new(format!("module `{name}` not found"));
                let dirs: Vec<String> = self
                    .options
                    .search_path
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect();
                e.notes.push(format!(
                    "looked for `{name}.lolli` and `{name}.ll` in: {}",
                    if dirs.is_empty() {
                        "(no directories)".to_string()
                    } else {
                        dirs.join(", ")
                    }
                ));
                let _ = tried;
                let known = crate::logic::module::available_modules(&self.options.search_path);
                if let Some(near) = crate::util::nearest(name, &known) {
                    e.notes.push(format!("did you mean `{near}`?"));
                }
                Err(e)
            }
        }
    }

    // ----------------------------------------------------------------
    // Queries

    /// Start a query for `goal` (a heap term) in the current state.  Linear
    /// entries usable now must all be consumed by each answer (unless erased).
    pub fn start_query(&mut self, goal: Cell) {
        self.push_choice(Alternative::Barrier);
        let first = 0;
        let end = self.ctx.entries.len() as u32;
        let q = self.push_frame(Action::QueryEnd { first, end }, self.cont);
        self.slack = 0;
        self.cont = self.push_frame(
            Action::Solve {
                goal,
                parent: NONE,
                origin: NONE,
            },
            q,
        );
        self.started.push(Instant::now());
    }

    /// Run `goal` to exhaustion inside the current proof (for built-ins such
    /// as `findall`): the goal sees the current context, and whatever it
    /// binds or consumes is undone afterwards.  `on_answer` is called at
    /// each answer (the goal's bindings are visible then) and returns whether
    /// to look for more.  The machine's state is unchanged on return.
    pub fn sub_search(
        &mut self,
        goal: Cell,
        on_answer: &mut dyn FnMut(&mut Machine) -> bool,
    ) -> Result<(), RuntimeError> {
        let (cont, slack) = (self.cont, self.slack);
        self.push_choice(Alternative::Barrier);
        let barrier = self.choices.len();
        let end = self.push_frame(Action::SubEnd, NONE);
        self.slack = 0;
        self.cont = self.push_frame(
            Action::Solve {
                goal,
                parent: NONE,
                origin: NONE,
            },
            end,
        );
        let mut result = Ok(());
        loop {
            match self.run_inner() {
                Ok(Event::Answer) => {
                    if !on_answer(self) {
                        break;
                    }
                    match self.backtrack() {
                        Ok(true) => {}
                        Ok(false) => break,
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    }
                }
                Ok(Event::Exhausted) => break,
                Ok(_) => {
                    result = Err(RuntimeError::new(
                        "top-level commands cannot run inside an aggregate such as findall",
                    ));
                    break;
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        // Drop every choice above the barrier, then the barrier itself.
        self.choices.truncate(barrier);
        if let Some(ch) = self.choices.pop() {
            self.restore(&ch);
        }
        self.update_hb();
        self.cont = cont;
        self.slack = slack;
        self.pending = None;
        result
    }

    /// Abandon the innermost query: undo everything it did.
    pub fn end_query(&mut self) {
        while let Some(ch) = self.choices.pop() {
            if matches!(ch.alt, Alternative::Barrier) {
                self.restore(&ch);
                break;
            }
        }
        self.started.pop();
        self.update_hb();
    }

    /// Run until the next answer or the end of the innermost query.
    pub fn run(&mut self) -> Result<Event, RuntimeError> {
        let r = self.run_inner();
        if r.is_err() {
            // Leave the state as it was at the start of the query.
            self.unwind_to_barrier();
        }
        r
    }

    /// Ask for the next answer after one was returned.
    pub fn next_answer(&mut self) -> Result<Event, RuntimeError> {
        if !self.backtrack()? {
            return Ok(Event::Exhausted);
        }
        self.run()
    }

    fn unwind_to_barrier(&mut self) {
        while let Some(ch) = self.choices.last().copied() {
            if matches!(ch.alt, Alternative::Barrier) {
                self.restore(&ch);
                self.cont = NONE;
                break;
            }
            self.choices.pop();
        }
        self.update_hb();
    }

    fn run_inner(&mut self) -> Result<Event, RuntimeError> {
        let mut ticks: u32 = 0;
        loop {
            ticks = ticks.wrapping_add(1);
            if ticks & 0xfff == 0 {
                self.check_limits()?;
            }
            if self.cont == NONE {
                // Only reachable if a query was not started.
                return Ok(Event::Exhausted);
            }
            let frame = self.frames[self.cont as usize];
            self.cont = frame.next;
            let ok = match frame.action {
                Action::Solve {
                    goal,
                    parent,
                    origin,
                } => self.solve(goal, parent, origin),
                Action::Bang {
                    goal,
                    parent,
                    origin,
                } => self.bang(goal, parent, origin),
                Action::ExitScope { first, end, saved } => Ok(self.exit_scope(first, end, saved)),
                Action::WithMid {
                    g2,
                    node,
                    origin,
                    saved,
                    trail,
                    ctx_len,
                } => Ok(self.with_mid(g2, node, origin, saved, trail, ctx_len)),
                Action::WithEnd {
                    c1,
                    n,
                    v1,
                    saved,
                    restricted,
                } => Ok(self.with_end(c1, n, v1, saved, restricted)),
                Action::BangEnd { saved } => {
                    self.ctx.unrestrict(&mut self.store.trail);
                    self.slack = saved;
                    Ok(true)
                }
                Action::GuardCommit {
                    choice,
                    then,
                    node,
                    origin,
                } => {
                    self.choices.truncate(choice as usize);
                    self.update_hb();
                    self.push_solve(then, node, origin);
                    Ok(true)
                }
                Action::RestoreOutput { output } => {
                    self.output = output;
                    Ok(true)
                }
                Action::RestoreInput { input } => {
                    self.input = input;
                    Ok(true)
                }
                Action::TimingEnd { start, var } => {
                    let ms = self
                        .started
                        .get(start as usize)
                        .map_or(0, |t| t.elapsed().as_millis() as i64);
                    Ok(self.store.unify(var, Cell::Int(ms)))
                }
                Action::SubEnd => return Ok(Event::Answer),
                Action::QueryEnd { first, end } => {
                    if self.query_end(first, end) {
                        return Ok(Event::Answer);
                    }
                    Ok(false)
                }
            };
            match ok {
                Ok(true) => {
                    if let Some(ev) = self.pending.take() {
                        return Ok(ev);
                    }
                }
                Ok(false) => {
                    if !self.backtrack()? {
                        return Ok(Event::Exhausted);
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    fn check_limits(&mut self) -> Result<(), RuntimeError> {
        if self.interrupt.swap(false, Ordering::Relaxed) {
            return Err(RuntimeError::new("interrupted"));
        }
        if let Some(d) = self.options.deadline {
            if Instant::now() >= d {
                return Err(RuntimeError::new("time limit exceeded")
                    .note("the query was stopped by --timeout"));
            }
        }
        Ok(())
    }

    /// Whether the machine is inside a query that was stopped at `top`
    /// (nested queries run on top of it).
    pub fn depth(&self) -> usize {
        self.choices
            .iter()
            .filter(|c| matches!(c.alt, Alternative::Barrier))
            .count()
    }

    // ----------------------------------------------------------------
    // Frames, choices, backtracking

    #[inline]
    fn push_frame(&mut self, action: Action, next: u32) -> u32 {
        self.frames.push(Frame { action, next });
        self.frames.len() as u32 - 1
    }

    #[inline]
    fn push_solve(&mut self, goal: Cell, parent: u32, origin: u32) {
        self.cont = self.push_frame(
            Action::Solve {
                goal,
                parent,
                origin,
            },
            self.cont,
        );
    }

    fn push_choice(&mut self, alt: Alternative) {
        let ch = Choice {
            alt,
            cont: self.cont,
            slack: self.slack,
            trail: self.store.trail.mark() as u32,
            heap: self.store.heap.len() as u32,
            eigens: self.store.heap.eigens.len() as u32,
            frames: self.frames.len() as u32,
            ctx: self.ctx.lens(),
            aux: self.aux.len() as u32,
            nodes: self.proof.nodes.len() as u32,
            slots: self.proof.slots.len() as u32,
            witnesses: self.proof.witnesses.len() as u32,
            erased: self.proof.erased.len() as u32,
            output: self.output,
            input: self.input,
        };
        self.choices.push(ch);
        self.store.hb = ch.heap;
    }

    #[inline]
    fn update_hb(&mut self) {
        self.store.hb = self.choices.last().map_or(0, |c| c.heap);
    }

    fn restore(&mut self, ch: &Choice) {
        let ctx = &mut self.ctx;
        self.store.undo_to(ch.trail as usize, |u: Undo| ctx.undo(u));
        self.store
            .heap
            .truncate(ch.heap as usize, ch.eigens as usize);
        self.frames.truncate(ch.frames as usize);
        self.ctx.truncate(&ch.ctx);
        self.aux.truncate(ch.aux as usize);
        self.proof.nodes.truncate(ch.nodes as usize);
        self.proof.slots.truncate(ch.slots as usize);
        self.proof.witnesses.truncate(ch.witnesses as usize);
        self.proof.erased.truncate(ch.erased as usize);
        self.cont = ch.cont;
        self.slack = ch.slack;
        self.output = ch.output;
        self.input = ch.input;
    }

    /// Resume the newest alternative; false when the innermost query is exhausted.
    fn backtrack(&mut self) -> Result<bool, RuntimeError> {
        loop {
            let Some(ch) = self.choices.last().copied() else {
                return Ok(false);
            };
            self.restore(&ch);
            match ch.alt {
                Alternative::Barrier => {
                    self.cont = NONE;
                    return Ok(false);
                }
                Alternative::Clauses {
                    goal,
                    cursor,
                    parent,
                    origin,
                } => {
                    self.choices.pop();
                    self.update_hb();
                    if self.call(goal, cursor, parent, origin)? {
                        return Ok(true);
                    }
                }
                Alternative::Goal {
                    goal,
                    parent,
                    origin,
                    rule,
                } => {
                    self.choices.pop();
                    self.update_hb();
                    if rule == Rule::OrRight {
                        let n = self.node(parent, Rule::OrRight, goal, 0, 0);
                        let g = self.arg_of(goal, 1);
                        self.push_solve(g, n, origin);
                    } else {
                        self.push_solve(goal, parent, origin);
                    }
                    return Ok(true);
                }
            }
        }
    }

    // ----------------------------------------------------------------
    // Proof log

    #[inline]
    fn node(&mut self, parent: u32, rule: Rule, goal: Cell, a: u32, b: u32) -> u32 {
        if !self.options.proofs {
            return NONE;
        }
        self.proof.nodes.push(ProofNode {
            parent,
            rule,
            goal,
            a,
            b,
        });
        self.proof.nodes.len() as u32 - 1
    }

    // ----------------------------------------------------------------
    // Goals

    #[inline]
    fn arg_of(&self, c: Cell, i: u32) -> Cell {
        match self.store.deref(c) {
            Cell::Struct(a) => self.store.heap.arg(a, i),
            other => other,
        }
    }

    fn goal_error(&self, message: impl Into<String>, goal: Cell, origin: u32) -> RuntimeError {
        let mut e = RuntimeError::new(message);
        e.goal = Some(self.show(goal));
        e.origin = self.origin_of(origin);
        e
    }

    /// The source position of the clause behind entry `origin`.
    pub fn origin_of(&self, origin: u32) -> Option<(FileId, std::ops::Range<usize>)> {
        let entry = self.ctx.entries.get(origin as usize)?;
        match entry.source {
            Source::Template { tpl, .. } => self.templates.get(tpl as usize)?.origin.clone(),
            Source::Heap { .. } => None,
        }
    }

    /// Print a term (for messages).
    pub fn show(&self, c: Cell) -> String {
        crate::pretty::Printer::new(self).term(c)
    }

    fn solve(&mut self, goal: Cell, parent: u32, origin: u32) -> Step {
        let g = self.store.deref(goal);
        let (f, n, args) = match g {
            Cell::Atom(s) => (s, 0, Addr(0)),
            Cell::Struct(a) => match self.store.heap.get(a) {
                Cell::Functor(f, n) => (f, n, Addr(a.0 + 1)),
                _ => return Err(self.goal_error("corrupt term", g, origin)),
            },
            Cell::Ref(_) => {
                return Err(self
                    .goal_error("an unbound variable was called as a goal", g, origin)
                    .note("bind the variable to a formula before calling it"))
            }
            _ => {
                return Err(self.goal_error(
                    format!("`{}` is not a formula and cannot be proved", self.show(g)),
                    g,
                    origin,
                ))
            }
        };
        let arg = |m: &Machine, i: u32| m.store.heap.get(Addr(args.0 + i));
        match (f, n) {
            (sym::TRUE, 0) => {
                self.node(parent, Rule::One, g, 0, 0);
                Ok(true)
            }
            (sym::ERASE, 0) => {
                let node = self.node(parent, Rule::Erase, g, 0, 0);
                self.slack = if node == NONE { 1 } else { node + 2 };
                Ok(true)
            }
            (sym::FAIL, 0) => Ok(false),
            (sym::COMMA, 2) => {
                let node = self.node(parent, Rule::Tensor, g, 0, 0);
                let (a, b) = (arg(self, 0), arg(self, 1));
                self.push_solve(b, node, origin);
                self.push_solve(a, node, origin);
                Ok(true)
            }
            (sym::WITH, 2) => {
                let node = self.node(parent, Rule::With, g, 0, 0);
                let (a, b) = (arg(self, 0), arg(self, 1));
                self.cont = self.push_frame(
                    Action::WithMid {
                        g2: b,
                        node,
                        origin,
                        saved: self.slack,
                        trail: self.store.trail.mark() as u32,
                        ctx_len: self.ctx.entries.len() as u32,
                    },
                    self.cont,
                );
                self.slack = 0;
                self.push_solve(a, node, origin);
                Ok(true)
            }
            (sym::SEMI, 2) => {
                self.push_choice(Alternative::Goal {
                    goal: g,
                    parent,
                    origin,
                    rule: Rule::OrRight,
                });
                let node = self.node(parent, Rule::OrLeft, g, 0, 0);
                let a = arg(self, 0);
                self.push_solve(a, node, origin);
                Ok(true)
            }
            (sym::LOLLI, 2) | (sym::NECK, 2) | (sym::IMP, 2) | (sym::RIMP, 2) => {
                let (d, body) = if f == sym::LOLLI || f == sym::IMP {
                    (arg(self, 0), arg(self, 1))
                } else {
                    (arg(self, 1), arg(self, 0))
                };
                let linear = f == sym::LOLLI || f == sym::NECK;
                let rule = if linear { Rule::Lolli } else { Rule::Imp };
                let node = self.node(parent, rule, g, 0, 0);
                let (first, end) = self.assume(d, linear, node, g, origin)?;
                if node != NONE {
                    self.proof.nodes[node as usize].a = first;
                    self.proof.nodes[node as usize].b = end;
                }
                self.enter_scope(first, end, body, node, origin);
                Ok(true)
            }
            (sym::LOAD, 2) => {
                let (m, body) = (arg(self, 0), arg(self, 1));
                let m = self.store.deref(m);
                let (name, margs) = match m {
                    Cell::Atom(s) => (s, Vec::new()),
                    Cell::Struct(a) => match self.store.heap.get(a) {
                        Cell::Functor(s, k) => {
                            (s, (0..k).map(|i| self.store.heap.arg(a, i)).collect())
                        }
                        _ => return Ok(false),
                    },
                    Cell::Ref(_) => {
                        return Err(self.goal_error(
                            "the module name in `--o` is an unbound variable",
                            g,
                            origin,
                        ))
                    }
                    other => {
                        return Err(self.goal_error(
                            format!(
                                "`{}` cannot be a module name in `--o`: use a name",
                                self.show(other)
                            ),
                            g,
                            origin,
                        ))
                    }
                };
                let mname = self.symbols.name(name).to_string();
                let loaded = self.find_and_load(&mname).map_err(|mut e| {
                    e.goal = Some(self.show(g));
                    e.origin = self.origin_of(origin);
                    e
                })?;
                if loaded.module.params.len() != margs.len() {
                    return Err(self.goal_error(
                        format!(
                            "module `{mname}` takes {} parameter(s) but was given {}",
                            loaded.module.params.len(),
                            margs.len()
                        ),
                        g,
                        origin,
                    ));
                }
                let node = self.node(parent, Rule::Lolli, g, 0, 0);
                let (first, end) = self.assume_module(&loaded, &margs, node);
                if node != NONE {
                    self.proof.nodes[node as usize].a = first;
                    self.proof.nodes[node as usize].b = end;
                }
                self.enter_scope(first, end, body, node, origin);
                Ok(true)
            }
            (sym::BANG, 1) => {
                let a = arg(self, 0);
                self.bang_node(g, a, parent, origin)
            }
            (sym::GUARD, 3) => {
                let node = self.node(parent, Rule::Guard, g, 0, 0);
                let (c, t, e) = (arg(self, 0), arg(self, 1), arg(self, 2));
                let choice = self.choices.len() as u32;
                self.push_choice(Alternative::Goal {
                    goal: e,
                    parent: node,
                    origin,
                    rule: Rule::Guard,
                });
                self.cont = self.push_frame(
                    Action::GuardCommit {
                        choice,
                        then: t,
                        node,
                        origin,
                    },
                    self.cont,
                );
                self.push_solve(c, node, origin);
                Ok(true)
            }
            (sym::FORALL, 2) | (sym::EXISTS, 2) => {
                let (b, body) = (arg(self, 0), arg(self, 1));
                let Cell::Bound(id) = b else {
                    return Err(self.goal_error("malformed quantifier", g, origin));
                };
                let witness = if f == sym::FORALL {
                    let name = self
                        .binder_names
                        .get(id as usize)
                        .copied()
                        .unwrap_or(sym::NIL);
                    self.store.heap.new_eigen(name)
                } else {
                    self.store.heap.new_var()
                };
                let inst = self.substitute(body, id, witness);
                let rule = if f == sym::FORALL {
                    Rule::Forall
                } else {
                    Rule::Exists
                };
                let wi = self.proof.witnesses.len() as u32;
                let node = self.node(parent, rule, g, wi, 0);
                if node != NONE {
                    self.proof.witnesses.push(witness);
                }
                self.push_solve(inst, node, origin);
                Ok(true)
            }
            (sym::APPLY, _) if n >= 1 => {
                let head = self.store.deref(arg(self, 0));
                let mut all: Vec<Cell> = Vec::new();
                let name = match head {
                    Cell::Atom(s) => s,
                    Cell::Struct(a) => match self.store.heap.get(a) {
                        Cell::Functor(s, k) => {
                            all.extend((0..k).map(|i| self.store.heap.arg(a, i)));
                            s
                        }
                        _ => return Ok(false),
                    },
                    Cell::Ref(_) => {
                        return Err(self.goal_error(
                            "an unbound variable was called as a goal",
                            g,
                            origin,
                        ))
                    }
                    other => {
                        return Err(self.goal_error(
                            format!("`{}` cannot be applied to arguments", self.show(other)),
                            g,
                            origin,
                        ))
                    }
                };
                all.extend((1..n).map(|i| arg(self, i)));
                let goal = self.store.heap.new_struct(name, &all);
                self.push_solve(goal, parent, origin);
                Ok(true)
            }
            (sym::DCG, 2) => Err(self.goal_error("a grammar rule `-->` is not a goal", g, origin)),
            _ => {
                if let Some(b) = self.builtin_of(f, n) {
                    self.inferences += 1;
                    return self.builtin(b, g, args, parent, origin);
                }
                if let Some(rust) = self.foreign_of(f, n) {
                    return self.call_foreign(rust, g, args, n, parent, origin);
                }
                self.inferences += 1;
                let (pred, keys) = {
                    let heap = &self.store.heap;
                    keys_of(&heap.cells, |c| heap.deref(c), g, &mut self.scratch)
                };
                let cursor = self.ctx.cursor(pred, &keys);
                self.call(g, cursor, parent, origin)
            }
        }
    }

    fn builtin_of(&self, f: SymId, n: u32) -> Option<Builtin> {
        Builtin::lookup(self.symbols.name(f), n)
    }

    fn bang_node(&mut self, g: Cell, inner: Cell, parent: u32, origin: u32) -> Step {
        let node = self.node(parent, Rule::Bang, g, 0, 0);
        self.cont = self.push_frame(Action::BangEnd { saved: self.slack }, self.cont);
        let base = self.ctx.entries.len() as u32;
        self.ctx.restrict(&mut self.store.trail, base);
        self.slack = 0;
        self.push_solve(inner, node, origin);
        Ok(true)
    }

    fn bang(&mut self, goal: Cell, parent: u32, origin: u32) -> Step {
        let bang = self.store.heap.new_struct(sym::BANG, &[goal]);
        self.bang_node(bang, goal, parent, origin)
    }

    fn enter_scope(&mut self, first: u32, end: u32, body: Cell, node: u32, origin: u32) {
        self.cont = self.push_frame(
            Action::ExitScope {
                first,
                end,
                saved: self.slack,
            },
            self.cont,
        );
        self.slack = 0;
        self.push_solve(body, node, origin);
    }

    /// The erase node a slack value names (NONE when proofs are off).
    #[inline]
    fn slack_node(slack: u32) -> u32 {
        if slack >= 2 {
            slack - 2
        } else {
            NONE
        }
    }

    fn exit_scope(&mut self, first: u32, end: u32, saved: u32) -> bool {
        let v = self.slack;
        for e in first..end {
            let entry = self.ctx.entries[e as usize];
            if entry.linear && entry.state != GONE {
                if v == 0 {
                    return false;
                }
                self.ctx.set_state(&mut self.store.trail, e, GONE);
                let n = Self::slack_node(v);
                if n != NONE {
                    self.proof.erased.push((n, e));
                }
            }
        }
        self.ctx.close_scope(&mut self.store.trail, first, end);
        self.slack = if saved != 0 { saved } else { v };
        true
    }

    fn query_end(&mut self, first: u32, end: u32) -> bool {
        let v = self.slack;
        for e in first..end {
            if self.ctx.entries[e as usize].linear && self.ctx.usable(e) {
                if v == 0 {
                    return false;
                }
                self.ctx.set_state(&mut self.store.trail, e, GONE);
                let n = Self::slack_node(v);
                if n != NONE {
                    self.proof.erased.push((n, e));
                }
            }
        }
        true
    }

    fn with_mid(
        &mut self,
        g2: Cell,
        node: u32,
        origin: u32,
        saved: u32,
        trail: u32,
        ctx_len: u32,
    ) -> bool {
        let v1 = self.slack;
        let c1 = self.aux.len() as u32;
        let restricted = v1 == 0;
        let token = if restricted {
            let base = self.ctx.entries.len() as u32;
            Some(self.ctx.restrict(&mut self.store.trail, base))
        } else {
            None
        };
        let end = self.store.trail.mark();
        for i in trail as usize..end {
            if let Undo::State(e, _) = self.store.trail.entries[i] {
                let e = e.0;
                if e < ctx_len {
                    let entry = self.ctx.entries[e as usize];
                    if entry.linear && entry.state == GONE {
                        self.aux.push(e);
                        let state = match token {
                            Some(t) => t,
                            None => self.ctx.usable_state(e),
                        };
                        self.ctx.set_state(&mut self.store.trail, e, state);
                    }
                }
            }
        }
        let n = self.aux.len() as u32 - c1;
        self.cont = self.push_frame(
            Action::WithEnd {
                c1,
                n,
                v1,
                saved,
                restricted,
            },
            self.cont,
        );
        self.slack = 0;
        self.push_solve(g2, node, origin);
        true
    }

    fn with_end(&mut self, c1: u32, n: u32, v1: u32, saved: u32, restricted: bool) -> bool {
        let v2 = self.slack;
        for i in c1..c1 + n {
            let e = self.aux[i as usize];
            if self.ctx.entries[e as usize].state != GONE {
                if v2 == 0 {
                    return false;
                }
                self.ctx.set_state(&mut self.store.trail, e, GONE);
                let node = Self::slack_node(v2);
                if node != NONE {
                    self.proof.erased.push((node, e));
                }
            }
        }
        if restricted {
            self.ctx.unrestrict(&mut self.store.trail);
        }
        self.slack = if saved != 0 {
            saved
        } else if v1 != 0 && v2 != 0 {
            v2
        } else {
            0
        };
        true
    }

    // ----------------------------------------------------------------
    // Assumptions

    /// Assume formula `d` (linear or unbounded); returns the new entry range.
    fn assume(
        &mut self,
        d: Cell,
        linear: bool,
        node: u32,
        goal: Cell,
        origin: u32,
    ) -> Result<(u32, u32), RuntimeError> {
        let mut parts: Vec<Assumed> = Vec::new();
        {
            let heap = &self.store.heap;
            split_assumed(&heap.cells, &|c| heap.deref(c), d, !linear, &mut parts)
                .map_err(|e| self.clause_error(e, goal, origin))?;
        }
        let first = self.ctx.entries.len() as u32;
        for part in parts.iter().rev() {
            self.assume_clause(part.clause, linear && !part.bang, node, goal, origin)?;
        }
        Ok((first, self.ctx.entries.len() as u32))
    }

    fn clause_error(&self, e: ClauseError, goal: Cell, origin: u32) -> RuntimeError {
        match e {
            ClauseError::Unbound => self
                .goal_error("an unbound variable was assumed as a clause", goal, origin)
                .note("bind the variable to a clause before assuming it"),
            ClauseError::NotAClause(c) => self.goal_error(
                format!("`{}` is not a clause and cannot be assumed", self.show(c)),
                goal,
                origin,
            ),
            ClauseError::HasBinder => self.goal_error("unexpected quantifier", goal, origin),
        }
    }

    fn assume_clause(
        &mut self,
        clause: Cell,
        linear: bool,
        node: u32,
        goal: Cell,
        origin: u32,
    ) -> Result<(), RuntimeError> {
        let mut alts = Vec::new();
        let r = {
            let heap = &self.store.heap;
            clause_alts(&heap.cells, &|c| heap.deref(c), clause, &mut alts)
        };
        match r {
            Ok(()) => {}
            Err(ClauseError::HasBinder) => {
                return self.assume_generic(clause, linear, node, goal, origin)
            }
            Err(e) => return Err(self.clause_error(e, goal, origin)),
        }
        self.check_heads(alts.iter().map(|a| a.pred), goal, origin)?;
        let start = self.ctx.heap_alts.len() as u32;
        for a in &alts {
            let body = self.ctx.bodies.len() as u32;
            self.ctx.bodies.extend_from_slice(&a.body);
            self.ctx.heap_alts.push(super::context::HeapAlt {
                head: a.head,
                pred: a.pred,
                body,
                nbody: a.body.len() as u32,
            });
        }
        let e = self.ctx.push_entry(
            linear,
            Source::Heap {
                clause,
                alts: start,
                n: alts.len() as u32,
            },
            node,
        );
        for (k, a) in alts.iter().enumerate() {
            let (pred, keys) = {
                let heap = &self.store.heap;
                keys_of(&heap.cells, |c| heap.deref(c), a.head, &mut self.scratch)
            };
            self.ctx
                .index(&mut self.store.trail, e, k as u32, pred, &keys);
        }
        Ok(())
    }

    fn check_heads(
        &self,
        preds: impl Iterator<Item = (SymId, u32)>,
        goal: Cell,
        origin: u32,
    ) -> Result<(), RuntimeError> {
        for (f, n) in preds {
            let name = self.symbols.name(f);
            if Builtin::lookup(name, n).is_some() || is_connective(name, n) {
                return Err(self.goal_error(
                    format!("cannot assume a clause for `{name}`, which is built in"),
                    goal,
                    origin,
                ));
            }
        }
        Ok(())
    }

    /// Assume a heap clause that quantifies variables (`forall x \ R`): it is
    /// turned into a template whose environment is its free variables, so
    /// each use renames the quantified ones.
    fn assume_generic(
        &mut self,
        clause: Cell,
        linear: bool,
        node: u32,
        goal: Cell,
        origin: u32,
    ) -> Result<(), RuntimeError> {
        let (tpl, env) = crate::engine::generalize::template_of_heap(self, clause)
            .map_err(|e| self.clause_error(e, goal, origin))?;
        self.check_heads(tpl.keys.iter().map(|(p, _)| *p), goal, origin)?;
        let env_start = self.ctx.envs.len() as u32;
        self.ctx.envs.extend_from_slice(&env);
        let keys = tpl.keys.clone();
        self.templates.push(Rc::new(tpl));
        let id = self.templates.len() as u32 - 1;
        let e = self.ctx.push_entry(
            linear,
            Source::Template {
                tpl: id,
                env: env_start,
            },
            node,
        );
        for (k, (pred, key)) in keys.iter().enumerate() {
            self.ctx
                .index(&mut self.store.trail, e, k as u32, *pred, key);
        }
        Ok(())
    }

    // ----------------------------------------------------------------
    // Calls

    /// Try the candidates of `cursor` for atom `goal`.
    fn call(&mut self, goal: Cell, mut cursor: Cursor, parent: u32, origin: u32) -> Step {
        let Some(item) = self.ctx.next_usable(&mut cursor) else {
            return Ok(false);
        };
        let mut peek = cursor;
        if self.ctx.next_usable(&mut peek).is_some() {
            self.push_choice(Alternative::Clauses {
                goal,
                cursor,
                parent,
                origin,
            });
        }
        Ok(self.try_item(goal, item, parent))
    }

    fn try_item(&mut self, goal: Cell, item: Item, parent: u32) -> bool {
        let e = item.entry;
        let entry = self.ctx.entries[e as usize];
        match entry.source {
            Source::Heap { alts, .. } => {
                let alt = self.ctx.heap_alts[(alts + item.alt) as usize];
                if !self.store.unify(alt.head, goal) {
                    return false;
                }
                if entry.linear {
                    self.ctx.set_state(&mut self.store.trail, e, GONE);
                }
                let node = self.node(parent, Rule::Atom, goal, e, NONE);
                for i in (0..alt.nbody).rev() {
                    match self.ctx.bodies[(alt.body + i) as usize] {
                        Body::Goal(g) => self.push_solve(g, node, e),
                        Body::Bang(g) => {
                            self.cont = self.push_frame(
                                Action::Bang {
                                    goal: g,
                                    parent: node,
                                    origin: e,
                                },
                                self.cont,
                            )
                        }
                    }
                }
                true
            }
            Source::Template { tpl, env } => {
                let t = self.templates[tpl as usize].clone();
                let alt = &t.alts[item.alt as usize];
                let mut slots = std::mem::take(&mut self.slots);
                slots.clear();
                slots.resize(t.nslots as usize, None);
                let env_cells = &self.ctx.envs[env as usize..env as usize + t.env_len as usize];
                for (slot, &c) in slots.iter_mut().zip(env_cells) {
                    *slot = Some(c);
                }
                let ok = self.unify_template(&t, alt.head, goal, &mut slots);
                if ok {
                    if entry.linear {
                        self.ctx.set_state(&mut self.store.trail, e, GONE);
                    }
                    let mut bodies: Vec<(bool, Cell)> = Vec::with_capacity(alt.body.len());
                    for b in &alt.body {
                        match *b {
                            Body::Goal(g) => {
                                bodies.push((false, self.copy_template(&t, g, &mut slots)))
                            }
                            Body::Bang(g) => {
                                bodies.push((true, self.copy_template(&t, g, &mut slots)))
                            }
                        }
                    }
                    let node = if self.options.proofs {
                        let s = self.proof.slots.len() as u32;
                        for sl in slots.iter() {
                            let c = match sl {
                                Some(c) => *c,
                                None => self.store.heap.new_var(),
                            };
                            self.proof.slots.push(c);
                        }
                        self.node(parent, Rule::Atom, goal, e, s)
                    } else {
                        NONE
                    };
                    for &(bang, g) in bodies.iter().rev() {
                        if bang {
                            self.cont = self.push_frame(
                                Action::Bang {
                                    goal: g,
                                    parent: node,
                                    origin: e,
                                },
                                self.cont,
                            );
                        } else {
                            self.push_solve(g, node, e);
                        }
                    }
                }
                self.slots = slots;
                ok
            }
        }
    }

    /// Unify template cell `tc` (with slots) against heap cell `hc`.
    fn unify_template(
        &mut self,
        t: &Template,
        tc: Cell,
        hc: Cell,
        slots: &mut [Option<Cell>],
    ) -> bool {
        let mut stack = std::mem::take(&mut self.pairs);
        stack.clear();
        stack.push((tc, hc));
        let mut ok = true;
        while let Some((tc, hc)) = stack.pop() {
            match tc {
                Cell::Ref(s) => match slots[s.ix()] {
                    None => slots[s.ix()] = Some(self.store.deref(hc)),
                    Some(v) => {
                        if !self.store.unify(v, hc) {
                            ok = false;
                            break;
                        }
                    }
                },
                Cell::Struct(a) => {
                    let h = self.store.deref(hc);
                    match h {
                        Cell::Struct(b) => {
                            let fc = t.cells[a.ix()];
                            if fc != self.store.heap.get(b) {
                                ok = false;
                                break;
                            }
                            if let Cell::Functor(_, n) = fc {
                                for i in (0..n as usize).rev() {
                                    stack.push((
                                        t.cells[a.ix() + 1 + i],
                                        self.store.heap.get(Addr(b.0 + 1 + i as u32)),
                                    ));
                                }
                            }
                        }
                        Cell::Ref(x) => {
                            let c = self.copy_template(t, tc, slots);
                            if !self.store.can_bind(x, c) {
                                ok = false;
                                break;
                            }
                            self.store.bind(x, c);
                        }
                        _ => {
                            ok = false;
                            break;
                        }
                    }
                }
                constant => {
                    let h = self.store.deref(hc);
                    if h == constant {
                        continue;
                    }
                    match h {
                        Cell::Ref(x) => {
                            if !self.store.can_bind(x, constant) {
                                ok = false;
                                break;
                            }
                            self.store.bind(x, constant);
                        }
                        _ => {
                            ok = false;
                            break;
                        }
                    }
                }
            }
        }
        self.pairs = stack;
        ok
    }

    /// Copy template cell `c` to the heap, creating variables for unset slots.
    pub(crate) fn copy_template(
        &mut self,
        t: &Template,
        c: Cell,
        slots: &mut [Option<Cell>],
    ) -> Cell {
        match c {
            Cell::Ref(s) => match slots[s.ix()] {
                Some(v) => v,
                None => {
                    let v = self.store.heap.new_var();
                    slots[s.ix()] = Some(v);
                    v
                }
            },
            Cell::Struct(a) => {
                let start = a.ix();
                let end = t.block_end(a);
                let base = self.store.heap.len();
                let heap = &mut self.store.heap.cells;
                heap.reserve(end - start);
                for (i, &cell) in t.cells[start..end].iter().enumerate() {
                    let out = match cell {
                        Cell::Ref(s) => match slots[s.ix()] {
                            Some(v) => v,
                            None => {
                                let v = Cell::Ref(Addr((base + i) as u32));
                                slots[s.ix()] = Some(v);
                                v
                            }
                        },
                        Cell::Struct(p) => Cell::Struct(Addr((p.ix() - start + base) as u32)),
                        other => other,
                    };
                    heap.push(out);
                }
                Cell::Struct(Addr(base as u32))
            }
            other => other,
        }
    }

    /// Copy heap term `c`, replacing `Bound(id)` by `value` (binder instantiation).
    pub(crate) fn substitute(&mut self, c: Cell, id: u32, value: Cell) -> Cell {
        crate::engine::copy::copy_term(&mut self.store.heap, c, &mut |cell| match cell {
            Cell::Bound(b) if b == id => Some(value),
            _ => None,
        })
    }

    // ----------------------------------------------------------------
    // Output and input used by built-ins

    pub(crate) fn emit(&mut self, text: &str) {
        if self.output == 0 {
            self.host.write(text);
        } else if let Some(w) = self.outputs.get_mut(self.output as usize - 1) {
            let _ = w.write_all(text.as_bytes());
        }
    }

    pub(crate) fn read_line(&mut self) -> Option<String> {
        if self.input == 0 {
            self.host.read_line()
        } else {
            let r = self.inputs.get_mut(self.input as usize - 1)?;
            let mut line = String::new();
            match r.read_line(&mut line) {
                Ok(0) | Err(_) => None,
                Ok(_) => Some(line),
            }
        }
    }

    pub(crate) fn push_output(&mut self, w: Box<dyn std::io::Write>) -> u32 {
        self.outputs.push(w);
        let prev = self.output;
        self.output = self.outputs.len() as u32;
        prev
    }

    pub(crate) fn push_input(&mut self, r: Box<dyn std::io::BufRead>) -> u32 {
        self.inputs.push(r);
        let prev = self.input;
        self.input = self.inputs.len() as u32;
        prev
    }

    pub(crate) fn then_restore_output(&mut self, output: u32) {
        self.cont = self.push_frame(Action::RestoreOutput { output }, self.cont);
    }

    pub(crate) fn then_restore_input(&mut self, input: u32) {
        self.cont = self.push_frame(Action::RestoreInput { input }, self.cont);
    }

    pub(crate) fn then_timing(&mut self, var: Cell) {
        self.started.push(Instant::now());
        let start = self.started.len() as u32 - 1;
        self.cont = self.push_frame(Action::TimingEnd { start, var }, self.cont);
    }

    pub(crate) fn then_solve(&mut self, goal: Cell, parent: u32, origin: u32) {
        self.push_solve(goal, parent, origin);
    }

    pub(crate) fn proof_node(&mut self, parent: u32, rule: Rule, goal: Cell) -> u32 {
        self.node(parent, rule, goal, 0, 0)
    }

    pub(crate) fn error_at(
        &self,
        message: impl Into<String>,
        goal: Cell,
        origin: u32,
    ) -> RuntimeError {
        self.goal_error(message, goal, origin)
    }

    /// Flush files opened by `telling` (at the end of a query).
    pub fn flush_outputs(&mut self) {
        for w in self.outputs.iter_mut() {
            let _ = w.flush();
        }
    }

    /// Replace the host (for example to capture output).
    pub fn set_host(&mut self, host: Box<dyn Host>) {
        self.host = host;
    }
}
