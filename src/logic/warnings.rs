//! Load-time warnings: advice about a program that loaded but probably does
//! not do what its author meant.
//!
//! The checks read the syntax tree of each file (spans are exact there):
//! - a variable that occurs once in its clause (unless it starts with `_`);
//! - a call to a predicate that nothing can provide: no clause of the loaded
//!   files or of the modules they name with `M --o G` / `load M`, no clause
//!   assumed with `D -o G` / `D => G` anywhere in them, not a built-in, not a
//!   connective;
//! - a predicate name used with different numbers of arguments;
//! - a `LOCAL` name that no clause of its module mentions;
//! - a clause that exactly repeats an earlier clause of its file (`LINEAR`
//!   clauses may repeat: two copies of a resource are two resources);
//! - a `MEMO` predicate whose search can run a built-in with side effects,
//!   or that nothing defines (also for `--memo` and `:memo`, through
//!   [`memo_command`]);
//! - a number or a string written where a goal or a clause belongs
//!   (`p X :- X <= 3`, read as `(p X :- X) <= 3`): reaching it is an error;
//!   and a clause whose head is an arithmetic expression (`dir 0 -1.`, read
//!   as `dir 0 - 1`: a clause for `-`), whose calls also get a note when
//!   nothing defines them.
//!
//! The analysis is static and errs on the side of silence: a call whose
//! predicate is a variable is never reported, and once a program assumes a
//! formula it cannot see (`F -o G` with `F` a variable, or a module named by
//! a variable), any name that appears as a term anywhere counts as provided
//! (with its arguments, or more: `F = p, F a -o G` provides `p a`), and
//! in a goal to run no call is reported at all (its variable may hold a
//! clause from the program's data or from `read`); when a module it names
//! cannot be found, no call is reported at all.
//!
//! Invariants: no recursion on the syntax tree (work lists instead), so deep
//! terms cannot overflow the stack; the result is sorted by file and position.

use std::collections::{HashMap, HashSet};

use crate::builtins::{is_connective, Builtin};
use crate::diagnostics::{Warning, WarningKind};
use crate::source::FileId;
use crate::syntax::ast::{Item, Span, Term, TermKind};
use crate::term::cell::FastHash;

/// A name met by the scan, as a number (see [`Names`]).
type Name = u32;

/// A predicate: name and number of arguments.
type Pred = (Name, u32);

/// The names met by the scan, each stored once: a program of 100,000
/// facts names the same few predicates 100,000 times, and sets of
/// numbers hash faster than sets of strings.
#[derive(Default)]
struct Names {
    ids: HashMap<Box<str>, Name, FastHash>,
    text: Vec<Box<str>>,
}

impl Names {
    /// The number of `s`, given it if it is new.
    fn id(&mut self, s: &str) -> Name {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.text.len() as Name;
        self.text.push(s.into());
        self.ids.insert(s.into(), id);
        id
    }

    /// The number of `s`, if the scan met it.
    fn get(&self, s: &str) -> Option<Name> {
        self.ids.get(s).copied()
    }

    fn text(&self, id: Name) -> &str {
        &self.text[id as usize]
    }
}

/// One use of a predicate name, as a head or as a call.
struct Use {
    pred: Pred,
    /// The file it is in, when that file is being checked.
    file: Option<FileId>,
    span: Span,
    call: bool,
}

/// What the whole program (every file, every module it names) provides.
#[derive(Default)]
struct Facts {
    names: Names,
    /// Heads of clauses, program or assumed, named by a free name.
    provided: HashSet<Pred, FastHash>,
    /// Heads named by a name a `forall` binds around them (`forall rv \\
    /// (rv nil K -o ...)`): they provide the calls of that local predicate,
    /// which the scan records by name, but no predicate of the program, so
    /// `MEMO`, `--moves` and "did you mean" do not count them.
    local_heads: HashSet<Pred, FastHash>,
    /// Names (with arity) of every compound term or constant in argument position.
    data: HashSet<Pred, FastHash>,
    /// Some assumed formula cannot be seen statically.
    open_world: bool,
    /// Some module named in the program cannot be found: what it would
    /// provide is unknown, so no call is reported (running it reports the module).
    missing_module: bool,
    /// Module names met in `M --o G` and `load M`, not yet read.
    modules: Vec<String>,
    /// Every head and call, in file order.
    uses: Vec<Use>,
    /// Per top-level clause: the predicate names it defines, the names it
    /// calls and the side-effecting built-ins it runs (for `MEMO` checks),
    /// as ranges of `heads`, `calls` and `effects`.
    summaries: Vec<Summary>,
    heads: Vec<Name>,
    calls: Vec<Name>,
    effects: Vec<Name>,
    /// Numbers and strings in the place of a goal or a clause, in the
    /// files being checked.
    literals: Vec<Literal>,
}

/// A number or a string where a formula belongs (see [`Walk::literal`]),
/// or a clause whose head is an arithmetic expression.
struct Literal {
    file: FileId,
    span: Span,
    what: Misplaced,
    /// A goal's place (else a clause's).
    goal: bool,
    /// An operand of `<=`.
    implication: bool,
}

/// What [`Literal`] found.
enum Misplaced {
    Number(i64),
    Str,
    /// A clause head `A op B` for one of [`ARITHMETIC`].
    Arithmetic(&'static str),
}

/// The binary arithmetic operators: as the name of a clause head or a
/// call, most likely an expression written where an atom was meant
/// (`dir 0 -1` is `dir 0 - 1`).
const ARITHMETIC: [&str; 4] = ["+", "-", "*", "/"];

/// A note for a call that nothing defines (or a head) named by an
/// arithmetic operator, or by a Prolog built-in that Lolli does without.
fn spelling_note(name: &str, arity: u32) -> Option<String> {
    match (name, arity) {
        ("-", 2) => Some(crate::syntax::NEGATIVE_ARGUMENT.to_string()),
        ("+" | "*" | "/", 2) => Some(format!(
            "`{name}` is arithmetic, evaluated by `is` and the comparisons (`X is A {name} B`); \
             as a formula it names a predicate `{name}`"
        )),
        ("assert" | "asserta" | "assertz" | "retract", 1) => Some(
            "Lolli changes state with linear resources, not the database: `F -o G` proves `G` \
             with the resource `F` added, and a goal `F` consumes it"
                .to_string(),
        ),
        ("writeln" | "print", 1) | ("format", 1 | 2) => Some(
            "output is written with `write T` (`write_sans T` leaves strings and names \
             unquoted) and `nl`"
                .to_string(),
        ),
        ("halt", 0) => Some("`bye` or `exit` leaves the interpreter".to_string()),
        _ => None,
    }
}

/// What one top-level clause defines and reaches: its ranges of
/// [`Facts::heads`], [`Facts::calls`] and [`Facts::effects`].
#[derive(Clone)]
struct Summary {
    heads: std::ops::Range<usize>,
    calls: std::ops::Range<usize>,
    effects: std::ops::Range<usize>,
}

impl Facts {
    /// Whether something can provide clauses for `p`: a clause head, or,
    /// once the program assumes a formula it cannot see, a name used as
    /// data that a variable may carry to a head (`F = p, F a -o G` makes
    /// `p` a head of one more argument than written with it).
    fn can_provide(&self, p: &Pred) -> bool {
        self.provided.contains(p)
            || self.local_heads.contains(p)
            || (self.open_world && (0..=p.1).any(|k| self.data.contains(&(p.0, k))))
    }

    fn heads_of(&self, s: &Summary) -> &[Name] {
        &self.heads[s.heads.clone()]
    }
    fn calls_of(&self, s: &Summary) -> &[Name] {
        &self.calls[s.calls.clone()]
    }
    fn effects_of(&self, s: &Summary) -> &[Name] {
        &self.effects[s.effects.clone()]
    }
}

/// The warnings for `checked` (files just loaded, with their items), in the
/// company of `context` (files loaded before, which provide predicates only).
/// `read_module` gives the items of a module by name, if it can be found;
/// `external` names the predicates defined outside any source (written in
/// Rust), with their numbers of arguments.
pub fn check(
    checked: &[(FileId, &[Item])],
    context: &[&[Item]],
    external: &[(&str, u32)],
    read_module: &mut dyn FnMut(&str) -> Option<Vec<Item>>,
) -> Vec<Warning> {
    let mut facts = Facts::default();
    for &(name, arity) in external {
        let n = facts.names.id(name);
        facts.provided.insert((n, arity));
    }
    for items in context {
        scan_items(items, None, &mut facts);
    }
    for (file, items) in checked {
        scan_items(items, Some(*file), &mut facts);
    }
    follow_modules(&mut facts, read_module);

    let mut out = Vec::new();
    for (file, items) in checked {
        singletons(*file, items, &mut out);
        unused_locals(*file, items, &mut out);
        duplicates(*file, items, &mut out);
    }
    predicates(&facts, &mut out);
    for (file, items) in checked {
        memo_effects(*file, items, &facts, &mut out);
    }
    literals(&facts, &mut out);
    out.sort_by(|a, b| {
        (a.file, a.span.start, a.kind, &a.message).cmp(&(b.file, b.span.start, b.kind, &b.message))
    });
    out
}

/// Scan the modules the scanned items name (and those they name).
fn follow_modules(facts: &mut Facts, read_module: &mut dyn FnMut(&str) -> Option<Vec<Item>>) {
    let mut seen_modules: HashSet<String> = HashSet::new();
    while let Some(m) = facts.modules.pop() {
        if seen_modules.insert(m.clone()) {
            match read_module(&m) {
                Some(items) => scan_items(&items, None, facts),
                None => facts.missing_module = true,
            }
        }
    }
}

// ------------------------------------------------------------------ scanning

/// The binders around a term in the walk: an index into [`Scopes`], or
/// `None` at the top of a clause or goal.
type Scope = Option<usize>;

/// The binders met in the walk of one clause or goal, as linked lists in
/// an arena: each with its bound name and the binder around it.
type Scopes<'t> = Vec<(&'t str, Scope)>;

/// Whether `name` is bound by a `forall` / `exists` of `scope`: then it
/// names a local predicate in the binder's body, not the built-in or
/// connective spelled so (`forall not \\ (not a => not a)` calls no `a`).
fn is_bound(scopes: &Scopes<'_>, mut scope: Scope, name: &str) -> bool {
    while let Some(i) = scope {
        if scopes[i].0 == name {
            return true;
        }
        scope = scopes[i].1;
    }
    false
}

/// What a term stands for in the walk.
enum Role<'t> {
    /// A goal to prove.
    Goal(&'t Term),
    /// A clause (program clause or assumed).
    Clause(&'t Term),
    /// An assumed formula `D`: clauses joined by `,` and `{}`.
    Assumed(&'t Term),
    /// A term in argument position.
    Data(&'t Term),
}

fn scan_items(items: &[Item], file: Option<FileId>, facts: &mut Facts) {
    let mut work = Vec::new();
    for item in items {
        match item {
            Item::Clause(t) | Item::Linear(t, _) => scan(Role::Clause(t), file, facts, &mut work),
            Item::Module { .. } | Item::Local(..) | Item::Memo(..) => {}
        }
    }
}

/// The name and arguments of an atom-shaped term.
fn atom(t: &Term) -> Option<(&str, &[Term])> {
    match &t.kind {
        TermKind::Name(n) => Some((n, &[])),
        TermKind::App(h, args) => match &h.kind {
            TermKind::Name(n) => Some((n, args)),
            _ => None,
        },
        _ => None,
    }
}

/// Scan one top-level clause and record its summary.
fn scan<'t>(
    root: Role<'t>,
    file: Option<FileId>,
    facts: &mut Facts,
    work: &mut Vec<(Role<'t>, Scope)>,
) {
    let starts = (facts.heads.len(), facts.calls.len(), facts.effects.len());
    let mut scopes: Scopes<'t> = Vec::new();
    work.clear();
    work.push((root, None));
    while let Some((role, scope)) = work.pop() {
        let mut walk = Walk {
            file,
            facts: &mut *facts,
            work: &mut *work,
            scopes: &mut scopes,
            scope,
        };
        match role {
            Role::Goal(t) => walk.goal(t),
            Role::Clause(t) => walk.clause(t),
            Role::Assumed(t) => match &t.kind {
                TermKind::Var(_) | TermKind::Wildcard => facts.open_world = true,
                _ => match atom(t).filter(|(n, _)| !is_bound(&scopes, scope, n)) {
                    Some((",", [a, b])) => {
                        work.push((Role::Assumed(b), scope));
                        work.push((Role::Assumed(a), scope));
                    }
                    Some(("{}", [a])) => work.push((Role::Assumed(a), scope)),
                    _ => work.push((Role::Clause(t), scope)),
                },
            },
            Role::Data(t) => match &t.kind {
                TermKind::App(h, args) => {
                    if let TermKind::Name(n) = &h.kind {
                        let n = facts.names.id(n);
                        facts.data.insert((n, args.len() as u32));
                    }
                    work.extend(args.iter().map(|a| (Role::Data(a), scope)));
                }
                TermKind::Name(n) => {
                    let n = facts.names.id(n);
                    facts.data.insert((n, 0));
                }
                TermKind::Binder(_, _, _, body) => work.push((Role::Data(body), scope)),
                _ => {}
            },
        }
    }
    facts.summaries.push(Summary {
        heads: starts.0..facts.heads.len(),
        calls: starts.1..facts.calls.len(),
        effects: starts.2..facts.effects.len(),
    });
}

/// One step of [`scan`]'s walk: the term's file, what the walk found so
/// far and has still to do, and the binders around the term.
struct Walk<'w, 't> {
    file: Option<FileId>,
    facts: &'w mut Facts,
    work: &'w mut Vec<(Role<'t>, Scope)>,
    scopes: &'w mut Scopes<'t>,
    scope: Scope,
}

impl<'t> Walk<'_, 't> {
    /// Walk `role` later, among the binders around this term.
    fn push(&mut self, role: Role<'t>) {
        self.work.push((role, self.scope));
    }

    /// Walk the body of the binder of `x` later, with `x` bound in it.
    fn push_body(&mut self, x: &'t str, body: Role<'t>) {
        self.scopes.push((x, self.scope));
        let inner = Some(self.scopes.len() - 1);
        self.work.push((body, inner));
    }

    /// The name and arguments of `t` when it is an atom whose name is not
    /// bound around it: a bound name is a local predicate's, which no
    /// built-in, connective or special form spells.
    fn free_atom(&self, t: &'t Term) -> Option<(&'t str, &'t [Term])> {
        atom(t).filter(|(n, _)| !is_bound(self.scopes, self.scope, n))
    }

    fn goal(&mut self, t: &'t Term) {
        if let TermKind::Binder(_, x, _, body) = &t.kind {
            self.push_body(x, Role::Goal(body));
            return;
        }
        let Some((name, args)) = atom(t) else {
            // A variable (called at run time), a number or a string.  (A goal
            // variable is not followed by the `MEMO` checks: in the
            // continuation-passing style of Lolli programs nearly every
            // predicate calls one, and what it holds is known only at run
            // time; LANGUAGE.md section 10 says so.)
            self.literal(t, true, false);
            return;
        };
        let arity = args.len() as u32;
        if self.free_atom(t).is_none() {
            // A call of a local predicate (`forall p \ p a`).  One spelled
            // as a built-in or a connective is not recorded: the checks
            // below would read it as that built-in's.
            self.work
                .extend(args.iter().map(|a| (Role::Data(a), self.scope)));
            if Builtin::lookup(name, arity).is_none()
                && !is_connective(name, arity)
                && !Builtin::ALL.iter().any(|&(b, _)| b == name)
            {
                self.call(name, arity, t);
            }
            return;
        }
        match (name, args) {
            ("," | "&" | ";", [a, b]) => {
                self.push(Role::Goal(b));
                self.push(Role::Goal(a));
            }
            ("-o" | "=>", [d, g]) | (":-" | "<=", [g, d]) => {
                let le = name == "<=";
                if !(le && self.literal(g, true, true)) {
                    self.push(Role::Goal(g));
                }
                if !(le && self.literal(d, false, true)) {
                    self.push(Role::Assumed(d));
                }
            }
            ("--o", [m, g]) => {
                module(m, self.facts);
                self.push(Role::Goal(g));
            }
            ("{}", [g]) => self.push(Role::Goal(g)),
            ("->", [c, a, b]) => {
                self.push(Role::Goal(b));
                self.push(Role::Goal(a));
                self.push(Role::Goal(c));
            }
            ("telling" | "seeing", [f, g]) => {
                let e = self.facts.names.id(name);
                self.facts.effects.push(e);
                self.push(Role::Goal(g));
                self.push(Role::Data(f));
            }
            ("timing", [g, v]) => {
                let e = self.facts.names.id(name);
                self.facts.effects.push(e);
                self.push(Role::Data(v));
                self.push(Role::Goal(g));
            }
            ("load", [m]) => {
                let e = self.facts.names.id(name);
                self.facts.effects.push(e);
                module(m, self.facts)
            }
            _ => {
                if let Some(b) = Builtin::lookup(name, arity) {
                    if b.has_side_effects() {
                        let e = self.facts.names.id(name);
                        self.facts.effects.push(e);
                    }
                    // `not G`, `findall T G L`, ...: what G calls is called.
                    for (i, a) in args.iter().enumerate() {
                        self.push(if b.goal_args().contains(&i) {
                            Role::Goal(a)
                        } else {
                            Role::Data(a)
                        });
                    }
                    return;
                }
                self.work
                    .extend(args.iter().map(|a| (Role::Data(a), self.scope)));
                if is_connective(name, arity) {
                    return;
                }
                self.call(name, arity, t);
            }
        }
    }

    /// Whether `t`, in the place of a goal (`goal`) or a clause, is a
    /// number or a string, which no proof can use: recorded then, for a
    /// file being checked.  `implication` tells that it is an operand of
    /// `<=`, most likely meant as a comparison.
    fn literal(&mut self, t: &Term, goal: bool, implication: bool) -> bool {
        let what = match t.kind {
            TermKind::Int(n) => Misplaced::Number(n),
            TermKind::Str(_) => Misplaced::Str,
            _ => return false,
        };
        self.misplaced(t, what, goal, implication);
        true
    }

    /// Record `what`, found at `t`, for a file being checked.
    fn misplaced(&mut self, t: &Term, what: Misplaced, goal: bool, implication: bool) {
        if let Some(file) = self.file {
            self.facts.literals.push(Literal {
                file,
                span: t.span.clone(),
                what,
                goal,
                implication,
            });
        }
    }

    /// Record the call `t` of `name` with `arity` arguments.
    fn call(&mut self, name: &str, arity: u32, t: &Term) {
        let n = self.facts.names.id(name);
        self.facts.calls.push(n);
        self.facts.uses.push(Use {
            pred: (n, arity),
            file: self.file,
            span: t.span.clone(),
            call: true,
        });
    }

    fn clause(&mut self, t: &'t Term) {
        match &t.kind {
            TermKind::Binder(_, x, _, body) => {
                self.push_body(x, Role::Clause(body));
                return;
            }
            TermKind::Var(_) | TermKind::Wildcard => {
                self.facts.open_world = true;
                return;
            }
            _ => {}
        }
        if self.literal(t, false, false) {
            return;
        }
        let Some((name, args)) = atom(t) else {
            // A head applied through a variable (`P X`) or not a clause at all:
            // the loader reports the latter.
            self.facts.open_world = true;
            return;
        };
        // A head named by a bound name is a local predicate's, whatever
        // its spelling.
        let connective = self.free_atom(t).map(|(n, _)| n);
        match (connective, args) {
            (Some("&"), [a, b]) => {
                self.push(Role::Clause(b));
                self.push(Role::Clause(a));
            }
            (Some(":-" | "<="), [r, g]) | (Some("-o" | "=>"), [g, r]) => {
                let le = connective == Some("<=");
                if !(le && self.literal(g, true, true)) {
                    self.push(Role::Goal(g));
                }
                if !(le && self.literal(r, false, true)) {
                    self.push(Role::Clause(r));
                }
            }
            (Some("true"), []) => {}
            _ => {
                if let (Some(op), 2) = (connective, args.len()) {
                    if let Some(&op) = ARITHMETIC.iter().find(|&&a| a == op) {
                        self.misplaced(t, Misplaced::Arithmetic(op), false, false);
                    }
                }
                let n = self.facts.names.id(name);
                let pred = (n, args.len() as u32);
                self.work
                    .extend(args.iter().map(|a| (Role::Data(a), self.scope)));
                self.facts.heads.push(n);
                if connective.is_some() {
                    self.facts.provided.insert(pred);
                } else {
                    self.facts.local_heads.insert(pred);
                }
                self.facts.uses.push(Use {
                    pred,
                    file: self.file,
                    span: t.span.clone(),
                    call: false,
                });
            }
        }
    }
}

fn module(m: &Term, facts: &mut Facts) {
    match atom(m) {
        Some((name, _)) => facts.modules.push(name.to_string()),
        None => facts.open_world = true,
    }
}

// ------------------------------------------------------------------ MEMO

/// W009: a number or a string in the place of a goal or a clause.  Proving
/// or assuming it stops the query with an error (a runtime error, since the
/// clause may never be used); written as an operand of `<=` it was most
/// likely meant as a comparison.
fn literals(facts: &Facts, out: &mut Vec<Warning>) {
    for l in &facts.literals {
        let (place, doing) = match l.goal {
            true => ("goal", "proving"),
            false => ("clause", "assuming"),
        };
        let what = match l.what {
            Misplaced::Number(n) => format!("`{n}` is a number"),
            Misplaced::Str => "this is a string".to_string(),
            Misplaced::Arithmetic(op) => {
                out.push(Warning {
                    kind: WarningKind::NotAFormula,
                    file: l.file,
                    span: l.span.clone(),
                    message: format!(
                        "this clause's head is an arithmetic expression: \
                         the clause defines `{op}` with 2 arguments"
                    ),
                    related: Vec::new(),
                    notes: spelling_note(op, 2).into_iter().collect(),
                });
                continue;
            }
        };
        let mut notes = Vec::new();
        if l.implication {
            notes.push(
                "`<=` is the implication `G <= D` (`D => G`), at the level of `:-`: \
                 `p X :- X <= 3` reads as `(p X :- X) <= 3`; less than or equal is `=<`"
                    .to_string(),
            );
        }
        out.push(Warning {
            kind: WarningKind::NotAFormula,
            file: l.file,
            span: l.span.clone(),
            message: format!("{what}, not a {place}: {doing} it stops the query with an error"),
            related: Vec::new(),
            notes,
        });
    }
}

/// W006: a `MEMO` predicate whose search can run a built-in with side
/// effects (then a recorded failure may not be a failure next time); W007:
/// a `MEMO` name that no clause defines (a misspelling, most likely).
fn memo_effects(file: FileId, items: &[Item], facts: &Facts, out: &mut Vec<Warning>) {
    for item in items {
        let Item::Memo(names, _) = item else { continue };
        for (name, span) in names {
            out.extend(memo_advice(name, file, span, facts, false));
        }
    }
}

/// The warnings about memoizing `name` (the name written at `span`):
/// W006 if its search can run a side-effecting built-in, W007 if nothing
/// defines it (unless `defined` says the running context does).
fn memo_advice(
    name: &str,
    file: FileId,
    span: &Span,
    facts: &Facts,
    defined: bool,
) -> Option<Warning> {
    let id = facts.names.get(name);
    let known = defined
        || facts.open_world
        || facts.missing_module
        || id.is_some_and(|id| facts.provided.iter().any(|&(p, _)| p == id));
    if !known {
        let builtin = crate::builtins::Builtin::ALL
            .iter()
            .any(|&(b, _)| b == name);
        let (message, notes) = if builtin {
            (
                format!("`{name}` is memoized, but it is a built-in predicate"),
                vec![
                    "only calls that clauses answer are memoized: a built-in's calls never are"
                        .to_string(),
                ],
            )
        } else {
            let mut notes = vec![
                "unless a goal assumes clauses for it, memoizing it has no effect".to_string(),
            ];
            notes.extend(local_note(name, facts));
            notes.extend(did_you_mean(name, &defined_names(facts)));
            (
                format!("`{name}` is memoized, but no clause defines it"),
                notes,
            )
        };
        return Some(Warning {
            kind: WarningKind::MemoUnknown,
            file,
            span: span.clone(),
            message,
            related: Vec::new(),
            notes,
        });
    }
    let (path, builtin) = side_effect_path(id?, facts)?;
    Some(Warning {
        kind: WarningKind::MemoSideEffect,
        file,
        span: span.clone(),
        message: format!(
            "`{name}` is memoized, but its search can run `{builtin}`, which has side effects"
        ),
        related: Vec::new(),
        notes: vec![
            format!("reached through: {} -> {builtin}", path.join(" -> ")),
            "a recorded failure is only sound when success depends on the call and the \
             context alone; remove MEMO or the side effect"
                .to_string(),
        ],
    })
}

/// The first side-effecting built-in the search of `name` can run, with
/// the predicates through which it is reached (from `name` on).
fn side_effect_path(name: Name, facts: &Facts) -> Option<(Vec<String>, String)> {
    // The clauses defining each name, in file order (one pass, so the
    // search below is linear in the program, not quadratic).
    let mut by_head: HashMap<Name, Vec<&Summary>, FastHash> = HashMap::default();
    for s in &facts.summaries {
        for &h in facts.heads_of(s) {
            let clauses = by_head.entry(h).or_default();
            if !clauses.last().is_some_and(|&last| std::ptr::eq(last, s)) {
                clauses.push(s);
            }
        }
    }
    // Breadth-first over the predicates reachable from `name`, remembering
    // how each was reached (`None` for `name` itself).
    let mut via: HashMap<Name, Option<Name>, FastHash> = HashMap::default();
    let mut queue = std::collections::VecDeque::from([name]);
    via.insert(name, None);
    let mut found: Option<(Name, Name)> = None;
    'search: while let Some(p) = queue.pop_front() {
        for s in by_head.get(&p).into_iter().flatten() {
            if let Some(&e) = facts.effects_of(s).first() {
                found = Some((p, e));
                break 'search;
            }
            for &c in facts.calls_of(s) {
                if let std::collections::hash_map::Entry::Vacant(v) = via.entry(c) {
                    v.insert(Some(p));
                    queue.push_back(c);
                }
            }
        }
    }
    let (at, builtin) = found?;
    let mut path = vec![at];
    let mut p = at;
    while let Some(&Some(prev)) = via.get(&p) {
        path.push(prev);
        p = prev;
    }
    path.reverse();
    let path = path
        .iter()
        .map(|&n| facts.names.text(n).to_string())
        .collect();
    Some((path, facts.names.text(builtin).to_string()))
}

/// The warnings about memoizing `name` by command (`--memo`, `:memo`; the
/// name is at `span` of `file`), judged with `sources` (every program
/// loaded) and the modules they name, as for a `MEMO` declaration.
/// `defined`: the running context holds a clause for `name` (a module
/// opened by a goal defines predicates no loaded file shows).
pub fn memo_command(
    name: &str,
    file: FileId,
    span: Span,
    sources: &[&[Item]],
    read_module: &mut dyn FnMut(&str) -> Option<Vec<Item>>,
    defined: bool,
) -> Vec<Warning> {
    let mut facts = Facts::default();
    for items in sources {
        scan_items(items, None, &mut facts);
    }
    follow_modules(&mut facts, read_module);
    memo_advice(name, file, &span, &facts, defined)
        .into_iter()
        .collect()
}

/// The warning about listing the moves of `name` (at `arity`, when given)
/// by command (`--moves`, `:moves`, which is `origin`; the predicate as
/// written, `text`, is at `span` of `file`) when no clause can define it,
/// judged with `sources` (every program loaded), the modules they name and
/// `goals` (the goals about to run, which may assume its clauses).
/// `defined`: the running context holds a clause for it.
#[allow(clippy::too_many_arguments)]
pub fn moves_command(
    (name, arity): (&str, Option<u32>),
    (origin, text): (&str, &str),
    file: FileId,
    span: Span,
    sources: &[&[Item]],
    goals: &[Term],
    read_module: &mut dyn FnMut(&str) -> Option<Vec<Item>>,
    defined: bool,
) -> Option<Warning> {
    let mut facts = Facts::default();
    for items in sources {
        scan_items(items, None, &mut facts);
    }
    let mut work = Vec::new();
    for g in goals {
        scan(Role::Goal(g), None, &mut facts, &mut work);
    }
    follow_modules(&mut facts, read_module);
    if defined || facts.open_world || facts.missing_module {
        return None;
    }
    let id = facts.names.get(name);
    let mut arities: Vec<u32> = facts
        .provided
        .iter()
        .filter(|&&(p, _)| Some(p) == id)
        .map(|&(_, a)| a)
        .collect();
    arities.sort_unstable();
    arities.dedup();
    let builtin = crate::builtins::Builtin::ALL
        .iter()
        .any(|&(b, n)| b == name && arity.is_none_or(|a| a == n));
    let (message, notes) = match arity {
        _ if builtin && arities.is_empty() => (
            format!("`{text}` is given to {origin}, but it is a built-in predicate"),
            vec![
                "a built-in is one step of a proof, not the use of a clause: no move is listed"
                    .to_string(),
            ],
        ),
        None if arities.is_empty() => {
            let mut notes = vec!["unless a goal assumes clauses for it, no move is listed".into()];
            notes.extend(local_note(name, &facts));
            notes.extend(did_you_mean(name, &defined_names(&facts)));
            (
                format!("`{text}` is given to {origin}, but no clause defines it"),
                notes,
            )
        }
        Some(n) if !arities.contains(&n) => {
            let note = match arities.as_slice() {
                [] => local_note(name, &facts).unwrap_or_else(|| {
                    "unless a goal assumes clauses for it, no move is listed".to_string()
                }),
                some => {
                    let with: Vec<String> = some.iter().map(|&a| plural(a)).collect();
                    format!(
                        "`{name}` is defined with {}: write `{name}/{}`, or `{name}` for every arity",
                        with.join(" and with "),
                        some[0]
                    )
                }
            };
            (
                format!(
                    "`{text}` is given to {origin}, but no clause defines `{name}` with {}",
                    plural(n)
                ),
                vec![note],
            )
        }
        _ => return None,
    };
    Some(Warning {
        kind: WarningKind::MovesUnknown,
        file,
        span,
        message,
        related: Vec::new(),
        notes,
    })
}

/// W002 and W003 for a goal about to run (typed at the top level, or given
/// with `-e`; its text is `file`): a call that nothing can provide.  A call
/// is provided when the running context defines its predicate with that
/// number of arguments (`context` gives the numbers for a name), when the
/// goal itself assumes a clause for it (`p -o p`), when a module the goal
/// names (`m --o G`, `load m`) or the modules that one names define it,
/// or when it is a built-in or a connective.  A goal that assumes a
/// formula it cannot see (`F -o G`, `M --o G`) silences the check, as a
/// module that cannot be found does: unlike a file's clause, whose
/// variable can only carry what the program holds as data, the goal's may
/// hold a clause the program's data or `read` gives it (`cl C, C => p X`
/// with `cl (p 1)`), names the goal's text does not show.  `names` gives the predicate names a misspelling may mean, and
/// `local` whether a name is a module's `LOCAL` predicate in the context
/// at that number of arguments (both only called for a warning).
pub fn goal_check(
    goal: &Term,
    file: FileId,
    context: &dyn Fn(&str) -> Vec<u32>,
    names: &dyn Fn() -> Vec<String>,
    local: &dyn Fn(&str, u32) -> bool,
    read_module: &mut dyn FnMut(&str) -> Option<Vec<Item>>,
) -> Vec<Warning> {
    let mut facts = Facts::default();
    scan(Role::Goal(goal), Some(file), &mut facts, &mut Vec::new());
    follow_modules(&mut facts, read_module);
    let mut out = Vec::new();
    if facts.missing_module || facts.open_world {
        return out;
    }
    let mut reported: HashSet<Pred, FastHash> = HashSet::default();
    for u in facts.uses.iter().filter(|u| u.call) {
        let (name, arity) = (facts.names.text(u.pred.0), u.pred.1);
        if facts.can_provide(&u.pred) || !reported.insert(u.pred) {
            continue;
        }
        let mut others = context(name);
        if others.contains(&arity) {
            continue;
        }
        others.extend(
            facts
                .provided
                .iter()
                .chain(&facts.local_heads)
                .filter(|p| p.0 == u.pred.0)
                .map(|p| p.1),
        );
        others.sort_unstable();
        others.dedup();
        let builtin: Vec<u32> = Builtin::ALL
            .iter()
            .filter(|(b, _)| *b == name)
            .map(|&(_, n)| n)
            .collect();
        let always_fails = format!(
            "nothing defines `{name}` with {}, so this call fails",
            plural(arity)
        );
        let (kind, message, notes) = if !others.is_empty() {
            let with: Vec<String> = others.iter().map(|&n| plural(n)).collect();
            (
                WarningKind::ArityMismatch,
                format!(
                    "`{name}` is called with {}, but it is defined with {}",
                    plural(arity),
                    with.join(" and with ")
                ),
                vec![
                    always_fails,
                    "predicates with the same name and different numbers of arguments \
                     are different predicates"
                        .to_string(),
                ],
            )
        } else if !builtin.is_empty() {
            let with: Vec<String> = builtin.iter().map(|&n| plural(n)).collect();
            (
                WarningKind::ArityMismatch,
                format!(
                    "`{name}` is called with {}, but the built-in takes {}",
                    plural(arity),
                    with.join(" or ")
                ),
                vec![always_fails],
            )
        } else {
            let mut notes = vec![format!(
                "no clause of the program or the context, no module and no assumption \
                 of the goal has a head `{name}` with {}, and it is not a built-in: \
                 the call fails",
                plural(arity)
            )];
            notes.extend(spelling_note(name, arity));
            if local(name, arity) {
                notes.push(format!(
                    "`{name}` is a LOCAL name of a loaded module: only that module's \
                     clauses can call it (it prints as `{name}_` and a number)"
                ));
            } else {
                let mut known = names();
                known.extend(defined_names(&facts));
                notes.extend(did_you_mean(name, &known));
            }
            (
                WarningKind::UnknownPredicate,
                format!(
                    "`{name}` is called with {}, but nothing defines it",
                    plural(arity)
                ),
                notes,
            )
        };
        out.push(Warning {
            kind,
            file,
            span: u.span.clone(),
            message,
            related: Vec::new(),
            notes,
        });
    }
    out
}

// ------------------------------------------------------------------ predicates

fn plural(n: u32) -> String {
    format!("{n} argument{}", if n == 1 { "" } else { "s" })
}

/// A note for a `MEMO` or `--moves` name that only a `forall` binds where
/// clauses are given for it (tester-s14 F5): the predicate it names there
/// is a new constant at each use, not the program's predicate.
fn local_note(name: &str, facts: &Facts) -> Option<String> {
    let id = facts.names.get(name)?;
    facts.local_heads.iter().any(|&(p, _)| p == id).then(|| {
        format!(
            "`{name}` has clauses only where a `forall` binds it (`forall {name} \\ ...`): \
             there it names a predicate local to that goal, a new constant at each use, \
             not the program's `{name}`"
        )
    })
}

/// The names of the predicates something provides, sorted, each once.
fn defined_names(facts: &Facts) -> Vec<String> {
    let mut names: Vec<String> = facts
        .provided
        .iter()
        .map(|p| facts.names.text(p.0).to_string())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// A note guessing which of `names` was meant by `name`, if one is near.
/// One- and two-letter names are too short for a useful guess.
fn did_you_mean(name: &str, names: &[String]) -> Option<String> {
    if name.chars().count() <= 2 {
        return None;
    }
    crate::util::nearest(name, names).map(|near| format!("did you mean `{near}`?"))
}

/// Unknown predicates and names used with several arities.
fn predicates(facts: &Facts, out: &mut Vec<Warning>) {
    let can_provide = |p: &Pred| facts.can_provide(p);
    // The reference arity of each name: that of its first definition, else its first use.
    let mut reference: HashMap<Name, &Use, FastHash> = HashMap::default();
    for u in facts.uses.iter().filter(|u| !u.call) {
        reference.entry(u.pred.0).or_insert(u);
    }
    for u in &facts.uses {
        reference.entry(u.pred.0).or_insert(u);
    }
    // Only a warning uses the sorted names: made when the first is.
    let mut defined: Option<Vec<String>> = None;

    let mut reported: HashSet<(FileId, Pred), FastHash> = HashSet::default();
    for u in &facts.uses {
        let Some(file) = u.file else { continue };
        let Some(first) = reference.get(&u.pred.0) else {
            continue;
        };
        let (name, arity) = (facts.names.text(u.pred.0), u.pred.1);
        if first.pred.1 != arity {
            if !reported.insert((file, u.pred)) {
                continue;
            }
            let mut w = Warning {
                kind: WarningKind::ArityMismatch,
                file,
                span: u.span.clone(),
                message: format!(
                    "`{name}` is used here with {}, but with {} elsewhere",
                    plural(arity),
                    plural(first.pred.1)
                ),
                related: Vec::new(),
                notes: Vec::new(),
            };
            if first.file == Some(file) {
                w.related.push((
                    first.span.clone(),
                    format!("with {} here", plural(first.pred.1)),
                ));
            }
            if u.call && !can_provide(&u.pred) {
                w.notes.push(format!(
                    "nothing defines `{name}` with {}, so this call always fails",
                    plural(arity)
                ));
            } else {
                w.notes.push(
                    "predicates with the same name and different numbers of arguments \
                     are different predicates"
                        .to_string(),
                );
            }
            out.push(w);
        } else if u.call && !can_provide(&u.pred) && !facts.missing_module {
            if !reported.insert((file, u.pred)) {
                continue;
            }
            let mut notes = vec![format!(
                "no clause, module or assumption in the program has a head `{name}` \
                 with {}, and it is not a built-in: unless a goal assumes clauses for it, \
                 the call fails",
                plural(arity)
            )];
            notes.extend(spelling_note(name, arity));
            let defined = defined.get_or_insert_with(|| defined_names(facts));
            notes.extend(did_you_mean(name, defined));
            out.push(Warning {
                kind: WarningKind::UnknownPredicate,
                file,
                span: u.span.clone(),
                message: format!(
                    "`{name}` is called with {}, but nothing defines it",
                    plural(arity)
                ),
                related: Vec::new(),
                notes,
            });
        }
    }
}

// ------------------------------------------------------------------ per clause

/// Buffers of [`free_variables`], kept across the clauses of a file.
#[derive(Default)]
struct FreeVars<'t> {
    /// Binder scopes as a linked list in an arena: (name, enclosing scope).
    scopes: Vec<(&'t str, Option<usize>)>,
    work: Vec<(&'t Term, Option<usize>)>,
    /// The result.
    out: Vec<(&'t str, Span)>,
}

/// Every variable occurrence of a clause that is free in the clause (not
/// bound by a `forall` / `exists` around it), with its span, into `fv.out`.
fn free_variables<'t>(t: &'t Term, fv: &mut FreeVars<'t>) {
    let FreeVars { scopes, work, out } = fv;
    scopes.clear();
    work.clear();
    out.clear();
    work.push((t, None));
    while let Some((t, scope)) = work.pop() {
        match &t.kind {
            TermKind::Var(v) => {
                let mut s = scope;
                let mut bound = false;
                while let Some(i) = s {
                    if scopes[i].0 == v {
                        bound = true;
                        break;
                    }
                    s = scopes[i].1;
                }
                if !bound {
                    out.push((v.as_str(), t.span.clone()));
                }
            }
            TermKind::App(h, args) => {
                for a in args.iter().rev() {
                    work.push((a, scope));
                }
                work.push((h, scope));
            }
            TermKind::Binder(_, x, _, body) => {
                scopes.push((x.as_str(), scope));
                work.push((body, Some(scopes.len() - 1)));
            }
            TermKind::Wildcard | TermKind::Name(_) | TermKind::Int(_) | TermKind::Str(_) => {}
        }
    }
}

fn singletons(file: FileId, items: &[Item], out: &mut Vec<Warning>) {
    let params: Vec<&str> = items
        .iter()
        .filter_map(|i| match i {
            Item::Module { params, .. } => Some(params.iter().map(|(p, _)| p.as_str())),
            _ => None,
        })
        .flatten()
        .collect();
    let mut fv = FreeVars::default();
    let mut count: HashMap<&str, usize, FastHash> = HashMap::default();
    for item in items {
        let (Item::Clause(t) | Item::Linear(t, _)) = item else {
            continue;
        };
        free_variables(t, &mut fv);
        let vars = &fv.out;
        count.clear();
        for (v, _) in vars {
            *count.entry(v).or_insert(0) += 1;
        }
        for (v, span) in vars {
            if count.get(v) == Some(&1) && !v.starts_with('_') && !params.contains(v) {
                out.push(Warning {
                    kind: WarningKind::SingletonVariable,
                    file,
                    span: span.clone(),
                    message: format!("the variable `{v}` is used only once in this clause"),
                    related: Vec::new(),
                    notes: vec![format!(
                        "if that is meant, write `_{v}` or `_`; otherwise check its spelling"
                    )],
                });
            }
        }
    }
}

fn unused_locals(file: FileId, items: &[Item], out: &mut Vec<Warning>) {
    if !items.iter().any(|i| matches!(i, Item::Local(..))) {
        return;
    }
    let mut used: HashSet<&str, FastHash> = HashSet::default();
    let mut work = Vec::new();
    for item in items {
        let (Item::Clause(t) | Item::Linear(t, _)) = item else {
            continue;
        };
        work.push(t);
        while let Some(t) = work.pop() {
            match &t.kind {
                TermKind::Name(n) => {
                    used.insert(n);
                }
                TermKind::App(h, args) => {
                    work.push(h);
                    work.extend(args);
                }
                TermKind::Binder(_, x, _, body) => {
                    // A bound name shadows a LOCAL name of the same spelling.
                    let _ = x;
                    work.push(body);
                }
                _ => {}
            }
        }
    }
    for item in items {
        let Item::Local(names, _) = item else {
            continue;
        };
        for (n, span) in names {
            if !used.contains(n.as_str()) {
                out.push(Warning {
                    kind: WarningKind::UnusedLocal,
                    file,
                    span: span.clone(),
                    message: format!("the LOCAL name `{n}` is never used"),
                    related: Vec::new(),
                    notes: vec![format!(
                        "remove it from the `LOCAL` declaration, or check its spelling"
                    )],
                });
            }
        }
    }
}

/// A text that two terms share exactly when they are equal up to spans.
fn shape(t: &Term) -> String {
    enum Step<'t> {
        Term(&'t Term),
        Text(&'static str),
    }
    let mut out = String::new();
    let mut work = vec![Step::Term(t)];
    while let Some(step) = work.pop() {
        let t = match step {
            Step::Text(s) => {
                out.push_str(s);
                continue;
            }
            Step::Term(t) => t,
        };
        match &t.kind {
            TermKind::Var(v) => {
                out.push_str("V:");
                out.push_str(v);
                out.push(' ');
            }
            TermKind::Wildcard => out.push_str("_ "),
            TermKind::Name(n) => {
                out.push_str(&format!("N{}:{n} ", n.len()));
            }
            TermKind::Int(i) => out.push_str(&format!("I:{i} ")),
            TermKind::Str(s) => out.push_str(&format!("S{}:{s} ", s.len())),
            TermKind::App(h, args) => {
                out.push('(');
                work.push(Step::Text(") "));
                for a in args.iter().rev() {
                    work.push(Step::Term(a));
                }
                work.push(Step::Term(h));
            }
            TermKind::Binder(q, x, _, body) => {
                out.push_str(&format!("B:{q:?}:{}:{x} ", x.len()));
                work.push(Step::Term(body));
            }
        }
    }
    out
}

fn duplicates(file: FileId, items: &[Item], out: &mut Vec<Warning>) {
    let mut seen: HashMap<String, Span, FastHash> = HashMap::default();
    for item in items {
        let Item::Clause(t) = item else { continue };
        let shape = shape(t);
        match seen.get(&shape) {
            Some(first) => out.push(Warning {
                kind: WarningKind::DuplicateClause,
                file,
                span: t.span.clone(),
                message: "this clause repeats an earlier clause exactly".to_string(),
                related: vec![(first.clone(), "first written here".to_string())],
                notes: vec![
                    "the repeated clause gives every answer of the first one a second time"
                        .to_string(),
                ],
            }),
            None => {
                seen.insert(shape, t.span.clone());
            }
        }
    }
}
