//! A differential test of the resource semantics: random programs and goals
//! are solved by the interpreter and by a small reference interpreter
//! written here, directly from the rules of LANGUAGE.md §3–§5, and the two
//! must give the same answers in the same order: plain, with `MEMO` on
//! every predicate (in a table of the default size, and in one of two
//! keys, where keys are evicted and the interned terms renumbered all the
//! time), and with proofs recorded (each one passed to the independent
//! checker).
//!
//! The reference shares no code with the engine.  It keeps the context as a
//! stack of clauses with a "consumed" flag per linear one, copies its state
//! at every branch, and computes every outcome of a goal eagerly as a list:
//! an outcome is the set of consumed resources, the substitution, and the
//! `erase` flag of the input/output model with lazy erase (Cervesato, Hodas
//! and Pfenning's RM3), which says that the goal proved an `erase` that may
//! absorb whatever it leaves.  Its rules are the declarative ones:
//!
//! - `G1 , G2`: G2 starts from what G1 left; the flag is either flag.
//! - `G1 & G2`: both start from the same resources (G2 after G1's
//!   bindings); without flags both must consume the same resources; with
//!   one flag, the flagged side must consume a subset of what the other
//!   consumes (its `erase` absorbs the difference), and the outcome is the
//!   other side's; with both flags, the union, flagged.  When G1 has no
//!   flag, G2 sees only the resources G1 consumed (RM3 runs it so; it
//!   matters to goals that test for a resource, like `not`).
//! - `D -o G`: D's linear clauses must be consumed by G unless G's flag is
//!   set; `D => G`: D's clauses are unlimited.
//! - `{G}`: G sees no linear resource from outside; the flag does not pass.
//! - `C -> T | E`: the first outcome of C, then T from it; else E.
//! - `not G`: no outcome of G (which may leave resources unused); nothing
//!   is consumed or bound.
//! - `exists x \ G`: a fresh variable; `forall x \ G`: a fresh constant
//!   that no variable older than it may hold, even through a newer one
//!   (checked on the whole substitution after every binding).
//! - `=`: unification with the occurs check.
//! - an atom: assumed clauses newest first (within one assumption, left to
//!   right), then the program's clauses in file order; a linear one is
//!   consumed.  A linear `R1 & R2` is used once, as either.
//! - the query succeeds when every `LINEAR` fact is consumed or the flag is
//!   set.
//!
//! Four generators: small programs and goals mixing every connective;
//! contexts with many clauses for `r/2`, so that calls go through the
//! index's buckets; goals full of quantifiers; and puzzles, peg solitaire
//! on lines of holes with moves written like the seed program's (its
//! lookups in random orders), the holes given by the program or assumed
//! by the query, for the look-ahead and its record, the index of ground
//! facts and the memo table.  Programs are kept finite:
//! an unlimited clause's body only calls predicates of lower rank than its
//! head, and a linear clause's body assumes nothing.  The random source is
//! a seeded xorshift generator, so a failure reproduces exactly.

mod common;

use common::session;
use pretty_assertions::assert_eq;

// ------------------------------------------------------------ formulas

/// A term.  Variables of the query are shared by everything it assumes;
/// a program clause's variables are fresh for each use.
#[derive(Clone, Debug, PartialEq)]
enum Term {
    Const(&'static str),
    /// A logic variable: the query's first, then fresh ones, numbered in
    /// order of creation (a smaller number is older).
    Var(usize),
    /// A variable of a program clause.
    Local(usize),
    /// The name bound by the binder with this id (ids are unique).
    Bound(usize),
    /// A constant made by `forall`, by number.
    Eigen(usize),
    /// The compound term `f T`.
    F(Box<Term>),
}

/// An atom: a propositional letter, or `p`, `q`, `r` with arguments.
#[derive(Clone, Debug)]
struct Atom {
    pred: &'static str,
    args: Vec<Term>,
}

#[derive(Clone, Debug)]
enum Goal {
    True,
    Erase,
    Fail,
    Atom(Atom),
    Eq(Term, Term),
    Tensor(Box<Goal>, Box<Goal>),
    With(Box<Goal>, Box<Goal>),
    Plus(Box<Goal>, Box<Goal>),
    Lolli(Vec<Part>, Box<Goal>),
    Imp(Vec<Part>, Box<Goal>),
    Bang(Box<Goal>),
    Guard(Box<Goal>, Box<Goal>, Box<Goal>),
    Not(Box<Goal>),
    Exists(usize, Box<Goal>),
    Forall(usize, Box<Goal>),
}

/// A clause: a fact, `head :- body`, or `R1 & R2`.
#[derive(Clone, Debug)]
enum Res {
    Fact(Atom),
    Clause(Atom, Goal),
    With(Box<Res>, Box<Res>),
}

/// One part of an assumption `D1 , D2`: `{R}` is assumed for unlimited use.
#[derive(Clone, Debug)]
struct Part {
    bang: bool,
    res: Res,
}

/// A program clause: `LINEAR` or not.
#[derive(Clone, Debug)]
struct ProgClause {
    linear: bool,
    res: Res,
}

/// Every term of a formula replaced by `f` of it, visited in the order the
/// formula is written.
trait MapTerms: Sized {
    fn map_terms(&self, f: &mut dyn FnMut(&Term) -> Term) -> Self;
}

/// `f` applied to every term of `t` that is not `f T`, in written order.
fn map_deep(t: &Term, f: &mut dyn FnMut(&Term) -> Term) -> Term {
    match t {
        Term::F(x) => Term::F(Box::new(map_deep(x, f))),
        other => f(other),
    }
}

impl MapTerms for Atom {
    fn map_terms(&self, f: &mut dyn FnMut(&Term) -> Term) -> Self {
        Atom {
            pred: self.pred,
            args: self.args.iter().map(|t| map_deep(t, f)).collect(),
        }
    }
}

impl MapTerms for Res {
    fn map_terms(&self, f: &mut dyn FnMut(&Term) -> Term) -> Self {
        match self {
            Res::Fact(a) => Res::Fact(a.map_terms(f)),
            Res::Clause(h, b) => {
                let h = h.map_terms(f);
                Res::Clause(h, b.map_terms(f))
            }
            Res::With(x, y) => {
                let x = x.map_terms(f);
                Res::With(Box::new(x), Box::new(y.map_terms(f)))
            }
        }
    }
}

impl MapTerms for Vec<Part> {
    fn map_terms(&self, f: &mut dyn FnMut(&Term) -> Term) -> Self {
        self.iter()
            .map(|p| Part {
                bang: p.bang,
                res: p.res.map_terms(f),
            })
            .collect()
    }
}

impl MapTerms for Goal {
    fn map_terms(&self, f: &mut dyn FnMut(&Term) -> Term) -> Self {
        let sub = |g: &Goal, f: &mut dyn FnMut(&Term) -> Term| Box::new(g.map_terms(f));
        match self {
            Goal::True => Goal::True,
            Goal::Erase => Goal::Erase,
            Goal::Fail => Goal::Fail,
            Goal::Atom(a) => Goal::Atom(a.map_terms(f)),
            Goal::Eq(s, t) => {
                let s = map_deep(s, f);
                Goal::Eq(s, map_deep(t, f))
            }
            // Left before right: the order the formula is written in.
            Goal::Tensor(x, y) | Goal::With(x, y) | Goal::Plus(x, y) => {
                let (x, y) = (sub(x, f), sub(y, f));
                match self {
                    Goal::Tensor(..) => Goal::Tensor(x, y),
                    Goal::With(..) => Goal::With(x, y),
                    _ => Goal::Plus(x, y),
                }
            }
            Goal::Lolli(d, x) | Goal::Imp(d, x) => {
                let (d, x) = (d.map_terms(f), sub(x, f));
                match self {
                    Goal::Lolli(..) => Goal::Lolli(d, x),
                    _ => Goal::Imp(d, x),
                }
            }
            Goal::Bang(x) => Goal::Bang(sub(x, f)),
            Goal::Guard(c, t, e) => {
                let c = sub(c, f);
                let t = sub(t, f);
                Goal::Guard(c, t, sub(e, f))
            }
            Goal::Not(x) => Goal::Not(sub(x, f)),
            Goal::Exists(b, x) => Goal::Exists(*b, sub(x, f)),
            Goal::Forall(b, x) => Goal::Forall(*b, sub(x, f)),
        }
    }
}

// ------------------------------------------------------------ printing

const QUERY_VARS: [&str; 2] = ["X", "Y"];
const LOCAL_VARS: [&str; 2] = ["Z", "W"];
/// Every name a program clause's variable may have: random formulas use
/// the first two ([`LOCAL_VARS`]), puzzles' moves three.
const LOCAL_NAMES: [&str; 3] = ["Z", "W", "V"];

fn term_text(t: &Term) -> String {
    match t {
        Term::Const(c) => c.to_string(),
        Term::Var(i) => QUERY_VARS[*i].to_string(),
        Term::Local(i) => LOCAL_NAMES[*i].to_string(),
        Term::Bound(b) => format!("x{b}"),
        Term::Eigen(_) => unreachable!("constants made by forall are never written"),
        Term::F(t) => format!("(f {})", term_text(t)),
    }
}

fn atom_text(a: &Atom) -> String {
    if a.args.is_empty() {
        return a.pred.to_string();
    }
    let args: Vec<String> = a.args.iter().map(term_text).collect();
    format!("({} {})", a.pred, args.join(" "))
}

fn goal_text(g: &Goal) -> String {
    match g {
        Goal::True => "true".into(),
        Goal::Erase => "erase".into(),
        Goal::Fail => "fail".into(),
        Goal::Atom(a) => atom_text(a),
        Goal::Eq(s, t) => format!("({} = {})", term_text(s), term_text(t)),
        Goal::Tensor(x, y) => format!("({} , {})", goal_text(x), goal_text(y)),
        Goal::With(x, y) => format!("({} & {})", goal_text(x), goal_text(y)),
        Goal::Plus(x, y) => format!("({} ; {})", goal_text(x), goal_text(y)),
        Goal::Lolli(d, x) => format!("({} -o {})", parts_text(d), goal_text(x)),
        Goal::Imp(d, x) => format!("({} => {})", parts_text(d), goal_text(x)),
        Goal::Bang(x) => format!("{{{}}}", goal_text(x)),
        Goal::Guard(c, t, e) => {
            format!("({} -> {} | {})", goal_text(c), goal_text(t), goal_text(e))
        }
        Goal::Not(x) => format!("(not {})", goal_text(x)),
        Goal::Exists(b, x) => format!("(exists x{b} \\ {})", goal_text(x)),
        Goal::Forall(b, x) => format!("(forall x{b} \\ {})", goal_text(x)),
    }
}

fn res_text(r: &Res) -> String {
    match r {
        Res::Fact(a) => atom_text(a),
        Res::Clause(h, b) => format!("({} :- {})", atom_text(h), goal_text(b)),
        Res::With(x, y) => format!("({} & {})", res_text(x), res_text(y)),
    }
}

fn parts_text(d: &[Part]) -> String {
    let parts: Vec<String> = d
        .iter()
        .map(|p| {
            if p.bang {
                format!("{{{}}}", res_text(&p.res))
            } else {
                res_text(&p.res)
            }
        })
        .collect();
    format!("({})", parts.join(" , "))
}

fn program_text(prog: &[ProgClause]) -> String {
    let mut s = String::new();
    for c in prog {
        if c.linear {
            s.push_str("LINEAR ");
        }
        // A top-level clause is written without the outer parentheses.
        let text = match &c.res {
            Res::Clause(h, b) => format!("{} :- {}", atom_text(h), goal_text(b)),
            r => res_text(r),
        };
        s.push_str(&text);
        s.push_str(".\n");
    }
    s
}

// ------------------------------------------------------------ the reference

/// The state of a branch of the search.
#[derive(Clone, Debug)]
struct State {
    /// Per context entry (program clauses first, then assumed ones).
    consumed: Vec<bool>,
    /// Bindings of variables (the query's first, then fresh ones).
    binds: Vec<Option<Term>>,
    /// For each constant made by `forall`: the number of variables that
    /// existed when it was made (those may not be bound to it).
    eigens: Vec<usize>,
    /// Whether the goal proved an `erase` that may absorb what is left.
    erase: bool,
}

/// Linear entries below `base` are visible only if `allowed` has them.
struct Restriction {
    base: usize,
    allowed: Vec<bool>,
}

struct Entry {
    res: Res,
    linear: bool,
    /// Whether its variables are fresh for each use (program clauses).
    generic: bool,
}

/// Every outcome is computed; a goal with more than this many is skipped.
const MAX_OUTCOMES: usize = 2_000;

struct Reference {
    entries: Vec<Entry>,
    /// How many entries are the program's.
    nprog: usize,
    /// Restrictions, innermost last: a linear entry below `base` is
    /// visible only if `allowed` has it (`{G}` allows none).
    restrictions: Vec<Restriction>,
    /// Set when an outcome list grew too long: the goal is skipped.
    overflow: bool,
}

impl Reference {
    fn new(prog: &[ProgClause]) -> Self {
        let entries = prog
            .iter()
            .map(|c| Entry {
                res: c.res.clone(),
                linear: c.linear,
                generic: true,
            })
            .collect::<Vec<_>>();
        Reference {
            nprog: entries.len(),
            entries,
            restrictions: Vec::new(),
            overflow: false,
        }
    }

    /// The answers to `goal`, as the interpreter prints them, or `None`
    /// when there are too many outcomes to compute.
    fn answers(&mut self, goal: &Goal, nvars: usize) -> Option<Vec<String>> {
        let st = State {
            consumed: vec![false; self.entries.len()],
            binds: vec![None; nvars],
            eigens: Vec::new(),
            erase: false,
        };
        let outcomes = self.solve(goal, st);
        if self.overflow {
            return None;
        }
        let mut out = Vec::new();
        for o in outcomes {
            let all_used = (0..self.nprog).all(|i| !self.entries[i].linear || o.consumed[i]);
            if !(o.erase || all_used) {
                continue;
            }
            // A query variable bound to another prints that one's name
            // (variables are bound younger to older, and the query's are
            // numbered in order of appearance); other variables print as
            // `_1`, `_2`, ... in order of appearance in the answer.
            let mut others = Vec::new();
            let shown: Vec<String> = (0..nvars)
                .filter_map(|v| match resolve(&o.binds, &Term::Var(v)) {
                    Term::Var(w) if w == v => None,
                    t => Some(format!(
                        "{} = {}",
                        QUERY_VARS[v],
                        show(&t, nvars, &mut others)
                    )),
                })
                .collect();
            out.push(if shown.is_empty() {
                "yes".to_string()
            } else {
                shown.join(", ")
            });
        }
        Some(out)
    }

    fn visible(&self, i: usize, st: &State) -> bool {
        if !self.entries[i].linear {
            return true;
        }
        let allowed = match self.restrictions.last() {
            Some(r) if i < r.base => r.allowed.get(i).copied().unwrap_or(false),
            _ => true,
        };
        allowed && !st.consumed[i]
    }

    /// `g` solved under a restriction.
    fn restricted(&mut self, allowed: Vec<bool>, g: &Goal, st: State) -> Vec<State> {
        self.restrictions.push(Restriction {
            base: self.entries.len(),
            allowed,
        });
        let out = self.solve(g, st);
        self.restrictions.pop();
        out
    }

    fn solve(&mut self, g: &Goal, st: State) -> Vec<State> {
        if self.overflow {
            return Vec::new();
        }
        let mut st = State { erase: false, ..st };
        let out = match g {
            Goal::True => vec![st],
            Goal::Erase => vec![State { erase: true, ..st }],
            Goal::Fail => Vec::new(),
            Goal::Atom(a) => self.call(a, st),
            Goal::Eq(s, t) => {
                if unify(s, t, &mut st) {
                    vec![st]
                } else {
                    Vec::new()
                }
            }
            Goal::Tensor(x, y) => self.then(x, y, st),
            Goal::With(x, y) => {
                let mut out = Vec::new();
                let start = st.consumed.clone();
                for s1 in self.solve(x, st.clone()) {
                    let from = State {
                        consumed: start.clone(),
                        erase: false,
                        ..s1.clone()
                    };
                    let second = if s1.erase {
                        self.solve(y, from)
                    } else {
                        let used = start
                            .iter()
                            .zip(&s1.consumed)
                            .map(|(a, b)| !a && *b)
                            .collect();
                        self.restricted(used, y, from)
                    };
                    for s2 in second {
                        let c1 = &s1.consumed;
                        let c2 = &s2.consumed;
                        let subset =
                            |a: &Vec<bool>, b: &Vec<bool>| a.iter().zip(b).all(|(x, y)| !*x || *y);
                        let consumed = match (s1.erase, s2.erase) {
                            (false, false) if c1 == c2 => c1.clone(),
                            (true, false) if subset(c1, c2) => c2.clone(),
                            (false, true) if subset(c2, c1) => c1.clone(),
                            (true, true) => c1.iter().zip(c2).map(|(x, y)| *x || *y).collect(),
                            _ => continue,
                        };
                        out.push(State {
                            consumed,
                            erase: s1.erase && s2.erase,
                            ..s2
                        });
                    }
                }
                out
            }
            Goal::Plus(x, y) => {
                let mut out = self.solve(x, st.clone());
                out.extend(self.solve(y, st));
                out
            }
            Goal::Lolli(d, x) => self.assume(d, true, x, st),
            Goal::Imp(d, x) => self.assume(d, false, x, st),
            Goal::Bang(x) => {
                let out = self.restricted(Vec::new(), x, st);
                out.into_iter()
                    .map(|s| State { erase: false, ..s })
                    .collect()
            }
            Goal::Guard(c, t, e) => {
                let mut first = self.solve(c, st.clone());
                if first.is_empty() {
                    self.solve(e, st)
                } else {
                    let s1 = first.swap_remove(0);
                    let e1 = s1.erase;
                    self.solve(t, s1)
                        .into_iter()
                        .map(|s2| State {
                            erase: e1 || s2.erase,
                            ..s2
                        })
                        .collect()
                }
            }
            Goal::Not(x) => {
                if self.solve(x, st.clone()).is_empty() {
                    vec![st]
                } else {
                    Vec::new()
                }
            }
            Goal::Exists(b, x) => {
                let v = Term::Var(st.binds.len());
                st.binds.push(None);
                let body = x.map_terms(&mut |t| {
                    if *t == Term::Bound(*b) {
                        v.clone()
                    } else {
                        t.clone()
                    }
                });
                self.solve(&body, st)
            }
            Goal::Forall(b, x) => {
                let c = Term::Eigen(st.eigens.len());
                st.eigens.push(st.binds.len());
                let body = x.map_terms(&mut |t| {
                    if *t == Term::Bound(*b) {
                        c.clone()
                    } else {
                        t.clone()
                    }
                });
                self.solve(&body, st)
            }
        };
        if out.len() > MAX_OUTCOMES {
            self.overflow = true;
        }
        out
    }

    /// `x , y`.
    fn then(&mut self, x: &Goal, y: &Goal, st: State) -> Vec<State> {
        let mut out = Vec::new();
        for s1 in self.solve(x, st) {
            let e1 = s1.erase;
            for s2 in self.solve(y, s1) {
                out.push(State {
                    erase: e1 || s2.erase,
                    ..s2
                });
            }
        }
        out
    }

    /// `D -o G` (linear) or `D => G`.
    fn assume(&mut self, d: &[Part], linear: bool, g: &Goal, mut st: State) -> Vec<State> {
        let base = self.entries.len();
        // The first part is tried first: it is pushed last (newest).
        for p in d.iter().rev() {
            self.entries.push(Entry {
                res: p.res.clone(),
                linear: linear && !p.bang,
                generic: false,
            });
            st.consumed.push(false);
        }
        let outcomes = self.solve(g, st);
        let mut out = Vec::new();
        for mut s in outcomes {
            let left = (base..self.entries.len()).any(|i| self.entries[i].linear && !s.consumed[i]);
            if left && !s.erase {
                continue;
            }
            s.consumed.truncate(base);
            out.push(s);
        }
        self.entries.truncate(base);
        out
    }

    /// An atom: every candidate in order, every alternative of each.
    fn call(&mut self, a: &Atom, st: State) -> Vec<State> {
        let n = self.entries.len();
        let order: Vec<usize> = (self.nprog..n).rev().chain(0..self.nprog).collect();
        let mut out = Vec::new();
        for i in order {
            if !self.visible(i, &st) {
                continue;
            }
            let mut alts = Vec::new();
            flatten(&self.entries[i].res, &mut alts);
            for (head, body) in alts {
                let mut s = st.clone();
                let (head, body) = if self.entries[i].generic {
                    // Fresh variables for the clause's locals.
                    let base = s.binds.len();
                    s.binds.extend(std::iter::repeat_n(None, LOCAL_NAMES.len()));
                    let mut fresh = |t: &Term| match t {
                        Term::Local(l) => Term::Var(base + l),
                        other => other.clone(),
                    };
                    (
                        head.map_terms(&mut fresh),
                        body.map(|b| b.map_terms(&mut fresh)),
                    )
                } else {
                    (head, body)
                };
                if !unify_atoms(a, &head, &mut s) {
                    continue;
                }
                if self.entries[i].linear {
                    s.consumed[i] = true;
                }
                match body {
                    None => out.push(s),
                    Some(b) => out.extend(self.solve(&b, s)),
                }
            }
        }
        out
    }
}

/// The alternatives of a clause: `(head, body)` pairs, left to right.
fn flatten(r: &Res, out: &mut Vec<(Atom, Option<Goal>)>) {
    match r {
        Res::Fact(a) => out.push((a.clone(), None)),
        Res::Clause(h, b) => out.push((h.clone(), Some(b.clone()))),
        Res::With(x, y) => {
            flatten(x, out);
            flatten(y, out);
        }
    }
}

fn walk(binds: &[Option<Term>], t: &Term) -> Term {
    let mut t = t.clone();
    while let Term::Var(v) = t {
        match &binds[v] {
            Some(next) => t = next.clone(),
            None => return Term::Var(v),
        }
    }
    t
}

/// A term with every bound variable replaced by its value.
fn resolve(binds: &[Option<Term>], t: &Term) -> Term {
    match walk(binds, t) {
        Term::F(x) => Term::F(Box::new(resolve(binds, &x))),
        other => other,
    }
}

/// A resolved term as the interpreter prints it in an answer.
fn show(t: &Term, nvars: usize, others: &mut Vec<usize>) -> String {
    match t {
        Term::Const(c) => c.to_string(),
        Term::Var(v) if *v < nvars => QUERY_VARS[*v].to_string(),
        Term::Var(v) => {
            let n = match others.iter().position(|w| w == v) {
                Some(i) => i + 1,
                None => {
                    others.push(*v);
                    others.len()
                }
            };
            format!("_{n}")
        }
        Term::F(x) => match **x {
            Term::F(_) => format!("f ({})", show(x, nvars, others)),
            _ => format!("f {}", show(x, nvars, others)),
        },
        other => panic!("{other:?} in an answer"),
    }
}

fn contains(t: &Term, what: &Term) -> bool {
    t == what || matches!(t, Term::F(x) if contains(x, what))
}

/// Unification with the occurs check.  Every binding is followed by the
/// scope rule, checked on the whole substitution: no variable's value may
/// contain a `forall` constant made after the variable.
fn unify(s: &Term, t: &Term, st: &mut State) -> bool {
    let (s, t) = (walk(&st.binds, s), walk(&st.binds, t));
    match (s, t) {
        (Term::Var(u), Term::Var(v)) if u == v => true,
        // The younger variable (larger number) is bound to the older.
        (Term::Var(u), Term::Var(v)) => {
            st.binds[u.max(v)] = Some(Term::Var(u.min(v)));
            scopes_respected(st)
        }
        (Term::Var(u), other) | (other, Term::Var(u)) => {
            if contains(&resolve(&st.binds, &other), &Term::Var(u)) {
                return false;
            }
            st.binds[u] = Some(other);
            scopes_respected(st)
        }
        (Term::F(x), Term::F(y)) => unify(&x, &y, st),
        (x, y) => x == y,
    }
}

fn scopes_respected(st: &State) -> bool {
    (0..st.binds.len()).all(|v| {
        let value = resolve(&st.binds, &Term::Var(v));
        (0..st.eigens.len()).all(|e| v >= st.eigens[e] || !contains(&value, &Term::Eigen(e)))
    })
}

fn unify_atoms(a: &Atom, b: &Atom, st: &mut State) -> bool {
    if a.pred != b.pred {
        return false;
    }
    a.args.len() == b.args.len() && a.args.iter().zip(&b.args).all(|(x, y)| unify(x, y, st))
}

// ------------------------------------------------------------ generation

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Predicates (name, arity) by rank: an unlimited clause for one calls
/// only lower ones.
const PREDS: [(&str, usize); 6] = [("a", 0), ("b", 0), ("p", 1), ("c", 0), ("q", 1), ("r", 2)];
const CONSTS: [&str; 2] = ["k", "m"];

/// What a generated formula may contain.
#[derive(Clone)]
struct Kind {
    /// Atoms of rank below this.
    rank: usize,
    /// Whether it belongs to a program clause (its variables are the
    /// clause's) or to the query.
    program: bool,
    /// Whether it may assume (`-o`, `=>`).
    assume: bool,
    /// Binders in scope.
    bound: Vec<usize>,
}

struct Gen {
    rng: Rng,
    next_binder: usize,
    /// Favour `forall`, `exists`, `=` and compound terms (for the scope
    /// rule of `forall` constants).
    quantifiers: bool,
}

impl Gen {
    /// A generator drawing from `seed` (with `quantifiers`, goals full of
    /// binders).
    fn new(seed: u64, quantifiers: bool) -> Self {
        Gen {
            rng: Rng(seed),
            next_binder: 0,
            quantifiers,
        }
    }

    fn term(&mut self, k: &Kind) -> Term {
        if self.rng.chance(if self.quantifiers { 30 } else { 15 }) {
            return Term::F(Box::new(self.term(k)));
        }
        if self.quantifiers && !k.bound.is_empty() && self.rng.chance(40) {
            return Term::Bound(k.bound[self.rng.below(k.bound.len())]);
        }
        let rng = &mut self.rng;
        match rng.below(6) {
            0 | 1 => Term::Const(CONSTS[rng.below(CONSTS.len())]),
            2 | 3 if !k.bound.is_empty() => Term::Bound(k.bound[rng.below(k.bound.len())]),
            _ if k.program => Term::Local(rng.below(LOCAL_VARS.len())),
            _ => Term::Var(rng.below(QUERY_VARS.len())),
        }
    }

    /// An atom of rank `at` (any rank when `at` is out of range).
    fn atom_at(&mut self, at: usize, k: &Kind) -> Atom {
        let at = if at >= PREDS.len() {
            self.rng.below(PREDS.len())
        } else {
            at
        };
        let (pred, n) = PREDS[at];
        Atom {
            pred,
            args: (0..n).map(|_| self.term(k)).collect(),
        }
    }

    fn goal(&mut self, depth: usize, k: &Kind) -> Goal {
        if depth == 0 || self.rng.chance(25) {
            if self.quantifiers && self.rng.chance(50) {
                return Goal::Eq(self.term(k), self.term(k));
            }
            return match self.rng.below(14) {
                0 => Goal::True,
                1 => Goal::Erase,
                2 if self.rng.chance(30) => Goal::Fail,
                3 | 4 => Goal::Eq(self.term(k), self.term(k)),
                _ if k.rank == 0 => Goal::True,
                _ => {
                    let at = self.rng.below(k.rank);
                    Goal::Atom(self.atom_at(at, k))
                }
            };
        }
        let n = if k.assume { 13 } else { 9 };
        let pick = if self.quantifiers && self.rng.chance(40) {
            7
        } else {
            self.rng.below(n)
        };
        match pick {
            0 | 1 => Goal::Tensor(self.sub(depth, k), self.sub(depth, k)),
            2 => Goal::With(self.sub(depth, k), self.sub(depth, k)),
            3 => Goal::Plus(self.sub(depth, k), self.sub(depth, k)),
            4 => Goal::Bang(self.sub(depth, k)),
            5 => Goal::Guard(self.sub(depth, k), self.sub(depth, k), self.sub(depth, k)),
            6 => Goal::Not(self.sub(depth, k)),
            7 | 8 => {
                let b = self.next_binder;
                self.next_binder += 1;
                let mut inner = k.clone();
                inner.bound.push(b);
                let body = if self.quantifiers && self.rng.chance(60) {
                    // Two goals sharing the new name (`X = f Y , Y = x`).
                    let first = Box::new(self.goal(depth - 1, &inner));
                    Box::new(Goal::Tensor(first, Box::new(self.goal(depth - 1, &inner))))
                } else {
                    Box::new(self.goal(depth - 1, &inner))
                };
                if self.rng.chance(50) {
                    Goal::Exists(b, body)
                } else {
                    Goal::Forall(b, body)
                }
            }
            // What a program clause assumes is facts only: a clause with a
            // body could call the program clause again.
            9..=10 => {
                let d = if k.program { 0 } else { depth - 1 };
                Goal::Lolli(self.parts(d, true, k), self.sub(depth, k))
            }
            _ => {
                let d = if k.program { 0 } else { depth - 1 };
                Goal::Imp(self.parts(d, false, k), self.sub(depth, k))
            }
        }
    }

    fn sub(&mut self, depth: usize, k: &Kind) -> Box<Goal> {
        Box::new(self.goal(depth - 1, k))
    }

    /// The parts of an assumption; `linear` for `-o` (`=>` makes every
    /// part unlimited).
    fn parts(&mut self, depth: usize, linear: bool, k: &Kind) -> Vec<Part> {
        let n = 1 + self.rng.below(2);
        (0..n)
            .map(|_| {
                let bang = self.rng.chance(15);
                Part {
                    bang,
                    res: self.res(depth, linear && !bang, k),
                }
            })
            .collect()
    }

    /// An assumed clause.  A linear one may call anything (each use
    /// consumes it); an unlimited one calls only lower-ranked predicates.
    /// Bodies assume nothing.
    fn res(&mut self, depth: usize, linear: bool, k: &Kind) -> Res {
        if self.rng.chance(12) {
            let x = self.alt(depth, linear, k);
            return Res::With(Box::new(x), Box::new(self.alt(depth, linear, k)));
        }
        self.alt(depth, linear, k)
    }

    fn alt(&mut self, depth: usize, linear: bool, k: &Kind) -> Res {
        let head_rank = 1 + self.rng.below(PREDS.len());
        let head = self.atom_at(if linear { PREDS.len() } else { head_rank - 1 }, k);
        if depth > 0 && self.rng.chance(30) {
            let kind = Kind {
                rank: if linear { PREDS.len() } else { head_rank - 1 },
                assume: false,
                ..k.clone()
            };
            Res::Clause(head, self.goal(depth.min(2), &kind))
        } else {
            Res::Fact(head)
        }
    }

    fn program(&mut self) -> Vec<ProgClause> {
        let mut prog = Vec::new();
        for _ in 0..self.rng.below(5) {
            if self.rng.chance(35) {
                // A LINEAR fact: ground.
                let (pred, n) = PREDS[self.rng.below(PREDS.len())];
                let args = (0..n)
                    .map(|_| Term::Const(CONSTS[self.rng.below(CONSTS.len())]))
                    .collect();
                prog.push(ProgClause {
                    linear: true,
                    res: Res::Fact(Atom { pred, args }),
                });
            } else {
                let rank = 1 + self.rng.below(PREDS.len() - 1);
                let kind = Kind {
                    rank,
                    program: true,
                    assume: true,
                    bound: Vec::new(),
                };
                let head = self.atom_at(rank, &kind);
                let body = self.goal(2, &kind);
                prog.push(ProgClause {
                    linear: false,
                    res: Res::Clause(head, body),
                });
            }
        }
        prog
    }
}

/// Constants for the wide contexts: enough values for many index keys.
const WIDE_CONSTS: [&str; 5] = ["k", "m", "n", "o", "u"];

impl Gen {
    /// An argument of an `r` clause or call: a constant, `f` of one, or a
    /// variable (the clause's own in a program).
    fn wide_term(&mut self, program: bool) -> Term {
        let rng = &mut self.rng;
        match rng.below(10) {
            0 | 1 => Term::F(Box::new(self.wide_term(program))),
            2 | 3 if program => Term::Local(rng.below(LOCAL_VARS.len())),
            2 | 3 => Term::Var(rng.below(QUERY_VARS.len())),
            _ => Term::Const(WIDE_CONSTS[rng.below(WIDE_CONSTS.len())]),
        }
    }

    fn wide_atom(&mut self, program: bool) -> Atom {
        Atom {
            pred: "r",
            args: vec![self.wide_term(program), self.wide_term(program)],
        }
    }

    /// A program with up to 24 clauses for `r`, so that calls of `r` go
    /// through the index's buckets (a predicate of a few clauses is
    /// scanned): facts, some `LINEAR` ground ones, some rules.
    fn wide_program(&mut self) -> Vec<ProgClause> {
        let n = self.rng.below(25);
        (0..n)
            .map(|_| {
                if self.rng.chance(15) {
                    let args = (0..2)
                        .map(|_| Term::Const(WIDE_CONSTS[self.rng.below(WIDE_CONSTS.len())]))
                        .collect();
                    return ProgClause {
                        linear: true,
                        res: Res::Fact(Atom { pred: "r", args }),
                    };
                }
                let head = self.wide_atom(true);
                let res = if self.rng.chance(20) {
                    let kind = Kind {
                        rank: PREDS.len() - 1,
                        program: true,
                        assume: false,
                        bound: Vec::new(),
                    };
                    Res::Clause(head, self.goal(1, &kind))
                } else {
                    Res::Fact(head)
                };
                ProgClause { linear: false, res }
            })
            .collect()
    }

    /// Nested assumptions of many `r` clauses (linear or not), calls of
    /// `r` with arguments of every shape between and after them, and often
    /// an `erase` to take what is left.
    fn wide_goal(&mut self, layers: usize) -> Goal {
        let calls = |g: &mut Gen| {
            let n = 1 + g.rng.below(3);
            let mut goal = Goal::Atom(g.wide_atom(false));
            for _ in 1..n {
                goal = Goal::Tensor(Box::new(goal), Box::new(Goal::Atom(g.wide_atom(false))));
            }
            goal
        };
        let mut inner = calls(self);
        if self.rng.chance(60) {
            inner = Goal::Tensor(Box::new(inner), Box::new(Goal::Erase));
        }
        if layers > 0 {
            let n = 1 + self.rng.below(12);
            let linear = self.rng.chance(60);
            let parts = (0..n)
                .map(|_| Part {
                    bang: linear && self.rng.chance(10),
                    res: Res::Fact(self.wide_atom(false)),
                })
                .collect();
            let body = self.wide_goal(layers - 1);
            let body = if self.rng.chance(40) {
                Goal::Tensor(Box::new(calls(self)), Box::new(body))
            } else {
                body
            };
            let g = if linear {
                Goal::Lolli(parts, Box::new(body))
            } else {
                Goal::Imp(parts, Box::new(body))
            };
            if self.rng.chance(50) {
                return Goal::Tensor(Box::new(g), Box::new(Goal::Erase));
            }
            return g;
        }
        inner
    }
}

// ------------------------------------------------------------ puzzles

/// `f` applied `n` times to `t`.
fn nest(t: Term, n: usize) -> Term {
    (0..n).fold(t, |t, _| Term::F(Box::new(t)))
}

/// `r H S`: hole `H` holds a peg (`S` is `k`) or is empty (`m`).
fn hole_atom(h: Term, state: &'static str) -> Atom {
    Atom {
        pred: "r",
        args: vec![h, Term::Const(state)],
    }
}

/// `q N`.
fn q_atom(n: Term) -> Atom {
    Atom {
        pred: "q",
        args: vec![n],
    }
}

/// Conjunctions of `goals`, nested to the right or (when `left`) to the
/// left.
fn conjunction(goals: Vec<Goal>, left: bool) -> Goal {
    let mut it = goals.into_iter();
    let first = it.next().expect("a goal");
    if left {
        it.fold(first, |acc, g| Goal::Tensor(Box::new(acc), Box::new(g)))
    } else {
        let rest: Vec<Goal> = it.collect();
        match rest.is_empty() {
            true => first,
            false => Goal::Tensor(Box::new(first), Box::new(conjunction(rest, false))),
        }
    }
}

impl Gen {
    /// A move of peg solitaire on a line of holes `f^i k`: `q (f N)` takes
    /// a peg from a hole, jumps over a peg `s` holes on (`s` is 1 or 2,
    /// either way along the line) into an empty hole, and assumes the three
    /// holes' new states for `q N`: the seed program's shape, with its
    /// three lookups in a random order (so that a variable is first met
    /// inside `f (f A)`, or a lookup needs no variable of the first).
    /// With `named`, the first lookup may be `p A`, an unlimited fact of
    /// the program naming a hole (a ground fact with no state).
    fn puzzle_move(&mut self, named: bool) -> ProgClause {
        let a = Term::Local(0);
        let n = Term::Local(2);
        let stride = 1 + self.rng.below(2);
        let holes = [
            nest(a.clone(), 0),
            nest(a.clone(), stride),
            nest(a, 2 * stride),
        ];
        let (from, over, to) = if self.rng.chance(50) {
            (0, 1, 2)
        } else {
            (2, 1, 0)
        };
        let mut takes = vec![
            Goal::Atom(hole_atom(holes[from].clone(), "k")),
            Goal::Atom(hole_atom(holes[over].clone(), "k")),
            Goal::Atom(hole_atom(holes[to].clone(), "m")),
        ];
        if self.rng.chance(40) {
            let i = self.rng.below(3);
            let j = self.rng.below(3);
            takes.swap(i, j);
        }
        if named && self.rng.chance(50) {
            let name = Atom {
                pred: "p",
                args: vec![holes[0].clone()],
            };
            takes.insert(0, Goal::Atom(name));
        }
        let puts = [(from, "m"), (over, "m"), (to, "k")]
            .into_iter()
            .map(|(h, st)| Part {
                bang: false,
                res: Res::Fact(hole_atom(holes[h].clone(), st)),
            })
            .collect();
        takes.push(Goal::Lolli(puts, Box::new(Goal::Atom(q_atom(n.clone())))));
        let left = self.rng.chance(20);
        ProgClause {
            linear: false,
            res: Res::Clause(q_atom(Term::F(Box::new(n))), conjunction(takes, left)),
        }
    }

    /// How a game may end: with no move left to make (`q k`), or at any
    /// count (`q N`), and maybe with a peg in a given hole, or when no peg
    /// can jump forward over its neighbour (a `not` over the lookups).
    fn puzzle_end(&mut self, len: usize) -> ProgClause {
        let count = if self.rng.chance(70) {
            Term::Const("k")
        } else {
            Term::Local(2)
        };
        let body = match self.rng.below(8) {
            0..=2 => {
                let h = nest(Term::Const("k"), self.rng.below(len));
                Goal::Tensor(
                    Box::new(Goal::Atom(hole_atom(h, "k"))),
                    Box::new(Goal::Erase),
                )
            }
            3 => {
                let a = Term::Local(0);
                let jump = [(0, "k"), (1, "k"), (2, "m")]
                    .into_iter()
                    .map(|(i, st)| Goal::Atom(hole_atom(nest(a.clone(), i), st)))
                    .collect();
                Goal::Tensor(
                    Box::new(Goal::Not(Box::new(conjunction(jump, false)))),
                    Box::new(Goal::Erase),
                )
            }
            _ => Goal::Erase,
        };
        ProgClause {
            linear: false,
            res: Res::Clause(q_atom(count), body),
        }
    }

    /// A puzzle: a line of 4 to 7 holes, some moves and ends for `q`, and
    /// a query `q N` for a count, or for any count (`q X`, `q (f X)`).  The
    /// holes' states are `LINEAR` facts of the program or assumed by the
    /// query (so that calls meet both kinds of facts), in a random order;
    /// sometimes unlimited facts `p H` name holes for the moves to start
    /// from.
    fn puzzle(&mut self) -> (Vec<ProgClause>, Goal) {
        let len = 4 + self.rng.below(4);
        let mut states: Vec<&'static str> = (0..len)
            .map(|_| if self.rng.chance(70) { "k" } else { "m" })
            .collect();
        let empty = self.rng.below(len);
        states[empty] = "m";
        let mut order: Vec<usize> = (0..len).collect();
        for i in (1..len).rev() {
            let j = self.rng.below(i + 1);
            order.swap(i, j);
        }
        let mut prog = Vec::new();
        let named = self.rng.chance(30);
        if named {
            for i in 0..len {
                if self.rng.chance(80) {
                    let name = Atom {
                        pred: "p",
                        args: vec![nest(Term::Const("k"), i)],
                    };
                    prog.push(ProgClause {
                        linear: false,
                        res: Res::Fact(name),
                    });
                }
            }
        }
        let mut assumed = Vec::new();
        let query_share = self.rng.below(3);
        for i in order {
            let fact = hole_atom(nest(Term::Const("k"), i), states[i]);
            if query_share > 0 && self.rng.chance(50 * query_share) {
                assumed.push(Part {
                    bang: false,
                    res: Res::Fact(fact),
                });
            } else {
                prog.push(ProgClause {
                    linear: true,
                    res: Res::Fact(fact),
                });
            }
        }
        let mut rules: Vec<ProgClause> = (0..2 + self.rng.below(4))
            .map(|_| self.puzzle_move(named))
            .collect();
        for _ in 0..1 + self.rng.below(2) {
            let at = self.rng.below(rules.len() + 1);
            let end = self.puzzle_end(len);
            rules.insert(at, end);
        }
        prog.extend(rules);
        let pegs = states.iter().filter(|&&s| s == "k").count();
        let count = match self.rng.below(4) {
            0 => Term::Var(0),
            1 => Term::F(Box::new(Term::Var(0))),
            _ => nest(Term::Const("k"), self.rng.below(pegs.max(1))),
        };
        let call = Goal::Atom(q_atom(count));
        let goal = if assumed.is_empty() {
            call
        } else {
            Goal::Lolli(assumed, Box::new(call))
        };
        (prog, goal)
    }
}

/// Puzzles (see [`Gen::puzzle`]): the look-ahead, its record of decisions
/// by position, the index of ground facts and the memo table are at work
/// on boards, start holes and move orders of every kind.
fn run_puzzles(seed: u64, puzzles: usize) -> Tally {
    let mut gen = Gen::new(seed, false);
    let (mut compared, mut with_answers) = (0, 0);
    for _ in 0..puzzles {
        let (prog, goal) = gen.puzzle();
        if let Some(answers) = compare(&prog, &goal) {
            compared += 1;
            with_answers += answers as usize;
        }
    }
    Tally {
        asked: puzzles,
        compared,
        with_answers,
    }
}

/// The goal with its query variables renumbered so that `X` (number 0)
/// appears before `Y` in its text, as the interpreter numbers them.
fn in_order_of_appearance(g: Goal) -> Goal {
    let mut first = None;
    g.map_terms(&mut |t| {
        if let (Term::Var(v), None) = (t, first) {
            first = Some(*v);
        }
        t.clone()
    });
    if first != Some(1) {
        return g;
    }
    g.map_terms(&mut |t| match t {
        Term::Var(v) => Term::Var(1 - v),
        other => other.clone(),
    })
}

// ------------------------------------------------------------ the test

/// How the interpreter runs a goal.
#[derive(Copy, Clone, Debug)]
enum Mode {
    Plain,
    /// Every predicate memoized.
    Memo,
    /// Every predicate memoized in a table of two keys: keys are evicted
    /// and the interned terms renumbered all the time.
    MemoTight,
    /// Proofs recorded, and each answer's proof passed to the checker.
    Proofs,
    /// Through the top level's backend, every answer shown (`--all`), by
    /// a parallel search of three workers that splits at every chance.
    Parallel,
    /// As `Parallel`, the first two answers only (`--limit 2`): the
    /// parallel search then goes leftmost first, its helpers setting
    /// their parts aside for parts further left.
    ParallelFirst,
}

/// The interpreter's answers, or why it gave none.
fn engine_answers(program: &str, goal: &str, mode: Mode) -> Result<Vec<String>, String> {
    match mode {
        Mode::Parallel => return parallel_answers(program, goal, usize::MAX),
        Mode::ParallelFirst => return parallel_answers(program, goal, 2),
        _ => {}
    }
    let (mut s, _) = session();
    if !program.is_empty() {
        s.load_str("random", program).map_err(|e| s.render(&e))?;
    }
    match mode {
        Mode::Plain | Mode::Parallel | Mode::ParallelFirst => {}
        Mode::Memo | Mode::MemoTight => {
            for (pred, _) in PREDS {
                s.memoize(pred, "<test>").map_err(|e| format!("{e:?}"))?;
            }
            if let Mode::MemoTight = mode {
                s.machine.memo.limit = 2;
            }
        }
        Mode::Proofs => s.machine.options.proofs = true,
    }
    let mut q = s.query(goal).map_err(|e| format!("{e:?}"))?;
    let mut out = Vec::new();
    loop {
        match q.next_answer() {
            Ok(Some(a)) => {
                if let Mode::Proofs = mode {
                    let proof = q.proof().ok_or("no proof recorded")?;
                    if let Err(e) = proof.check() {
                        return Err(format!(
                            "the proof of answer {} is rejected: {e}",
                            out.len()
                        ));
                    }
                }
                out.push(a.to_string());
            }
            Ok(None) => return Ok(out),
            Err(e) => return Err(format!("{e:?}")),
        }
    }
}

/// The answers of `expected` that `mode` shows.
fn expected_in(expected: &[String], mode: Mode) -> Vec<String> {
    match mode {
        Mode::ParallelFirst => expected.iter().take(2).cloned().collect(),
        _ => expected.to_vec(),
    }
}

/// The first `limit` answers of a parallel search of `goal` (see
/// [`Mode::Parallel`]).
fn parallel_answers(program: &str, goal: &str, limit: usize) -> Result<Vec<String>, String> {
    use lolli::repl::{Answers, Backend, Output};
    let factory = Box::new(|| session().0);
    let mut b = Backend::new(factory, &[], Answers::Take(limit))?;
    if !program.is_empty() {
        let s = b.session_mut();
        s.load_str("random", program).map_err(|e| s.render(&e))?;
    }
    b.set_jobs(3);
    b.split_often(true);
    let mut out = Vec::new();
    for o in b.input(&format!("{goal}.")).outputs {
        match o {
            Output::Answer(a) => out.push(a),
            Output::Error(e) => return Err(e),
            _ => {}
        }
    }
    Ok(out)
}

/// Compare one program and goal in every [`Mode`]; whether the goal was compared
/// (the reference can compute it) and has answers.
fn compare(prog: &[ProgClause], goal: &Goal) -> Option<bool> {
    let text = program_text(prog);
    let goal = in_order_of_appearance(goal.clone());
    let expected = Reference::new(prog).answers(&goal, QUERY_VARS.len())?;
    let goal_text = goal_text(&goal);
    for mode in [
        Mode::Plain,
        Mode::Memo,
        Mode::MemoTight,
        Mode::Proofs,
        Mode::Parallel,
        Mode::ParallelFirst,
    ] {
        let got = engine_answers(&text, &goal_text, mode);
        assert_eq!(
            got,
            Ok(expected_in(&expected, mode)),
            "program:\n{text}goal: {goal_text}\nmode: {mode:?}"
        );
    }
    Some(!expected.is_empty())
}

/// Programs and goals with many clauses for `r` (see [`Gen::wide_goal`]).
fn run_wide(seed: u64, programs: usize, goals: usize) -> Tally {
    let mut gen = Gen::new(seed, false);
    let (mut compared, mut with_answers) = (0, 0);
    for _ in 0..programs {
        let prog = gen.wide_program();
        for _ in 0..goals {
            let layers = 1 + gen.rng.below(3);
            let goal = gen.wide_goal(layers);
            if let Some(answers) = compare(&prog, &goal) {
                compared += 1;
                with_answers += answers as usize;
            }
        }
    }
    Tally {
        asked: programs * goals,
        compared,
        with_answers,
    }
}

/// Random programs and goals (with `quantifiers`, goals full of binders).
fn run(seed: u64, programs: usize, goals: usize, quantifiers: bool) -> Tally {
    let mut gen = Gen::new(seed, quantifiers);
    let mut compared = 0;
    let mut with_answers = 0;
    for _ in 0..programs {
        let prog = gen.program();
        let text = program_text(&prog);
        for _ in 0..goals {
            let kind = Kind {
                rank: PREDS.len(),
                program: false,
                assume: true,
                bound: Vec::new(),
            };
            let goal = in_order_of_appearance(gen.goal(4, &kind));
            let mut reference = Reference::new(&prog);
            let Some(expected) = reference.answers(&goal, QUERY_VARS.len()) else {
                continue;
            };
            let goal_text = goal_text(&goal);
            for mode in [
                Mode::Plain,
                Mode::Memo,
                Mode::MemoTight,
                Mode::Proofs,
                Mode::Parallel,
                Mode::ParallelFirst,
            ] {
                let got = engine_answers(&text, &goal_text, mode);
                assert_eq!(
                    got,
                    Ok(expected_in(&expected, mode)),
                    "program:\n{text}goal: {goal_text}\nmode: {mode:?}"
                );
            }
            compared += 1;
            with_answers += !expected.is_empty() as usize;
        }
    }
    Tally {
        asked: programs * goals,
        compared,
        with_answers,
    }
}

/// What a run compared: goals asked for, goals the reference could answer
/// (and so compared), and goals of those with answers.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    asked: usize,
    compared: usize,
    with_answers: usize,
}

impl Tally {
    /// The generator must produce goals worth comparing: at least
    /// `compared` of those asked for compared (a fraction in tenths), more
    /// than one in `answers` of them with answers.
    fn worth(self, compared: usize, answers: usize) {
        let Tally {
            asked,
            compared: c,
            with_answers: a,
        } = self;
        assert!(
            c > asked * compared / 10,
            "only {c} of {asked} goals compared"
        );
        assert!(a > c / answers, "only {a} of {c} goals have answers");
    }
}

impl std::ops::Add for Tally {
    type Output = Tally;
    fn add(self, o: Tally) -> Tally {
        Tally {
            asked: self.asked + o.asked,
            compared: self.compared + o.compared,
            with_answers: self.with_answers + o.with_answers,
        }
    }
}

#[test]
fn random_goals_agree_with_the_reference() {
    run(0x5eed_1234_abcd_0001, 150, 20, false).worth(9, 10);
}

#[test]
fn goals_with_many_quantifiers_agree_with_the_reference() {
    run(0x5eed_9abc_0000_0003, 50, 20, true).worth(9, 10);
}

#[test]
fn puzzles_agree_with_the_reference() {
    run_puzzles(0x5eed_7777_0000_0004, 300).worth(8, 5);
}

#[test]
fn calls_among_many_clauses_agree_with_the_reference() {
    run_wide(0x5eed_5678_0000_0002, 60, 10).worth(8, 5);
}

/// A longer run for exploring: `LOLLI_REFERENCE_SEEDS=N cargo test
/// --release --test reference -- --ignored` checks N more seeds, from
/// seed 1 or from `LOLLI_REFERENCE_FROM` (to split a long search between
/// processes).
#[test]
#[ignore]
fn many_seeds_agree_with_the_reference() {
    let var = |name: &str, default: u64| -> u64 {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let n = var("LOLLI_REFERENCE_SEEDS", 20);
    // The first seed, so that a long search can be split between processes.
    let from = var("LOLLI_REFERENCE_FROM", 1);
    // A seed whose goals seldom have answers is no failure: the
    // generator's worth is judged over all the seeds.
    let [mut plain, mut quantified, mut wide, mut puzzles] = [Tally::default(); 4];
    for seed in from..from + n {
        plain = plain + run(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1, 150, 20, false);
        quantified = quantified + run(seed.wrapping_mul(0x6c8e_9cf5_7093_2bd5) | 1, 50, 20, true);
        wide = wide + run_wide(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1, 60, 10);
        puzzles = puzzles + run_puzzles(seed.wrapping_mul(0x1405_7b7e_f767_814f) | 1, 300);
    }
    plain.worth(9, 10);
    quantified.worth(9, 10);
    wide.worth(8, 5);
    puzzles.worth(8, 5);
}

#[test]
fn the_reference_gives_the_documented_counts() {
    // Some of LANGUAGE.md §4's counts, solved by the reference itself, so
    // that its rules are checked against the documented ones too.
    let atom = |pred| Atom {
        pred,
        args: Vec::new(),
    };
    let a = || Goal::Atom(atom("a"));
    let b = || Goal::Atom(atom("b"));
    let part = |res| Part { bang: false, res };
    let fa = || part(Res::Fact(atom("a")));
    let fb = || part(Res::Fact(atom("b")));
    let count = |g: Goal| Reference::new(&[]).answers(&g, 0).map(|v| v.len());
    let t = |x: Goal, y: Goal| Goal::Tensor(Box::new(x), Box::new(y));
    let w = |x: Goal, y: Goal| Goal::With(Box::new(x), Box::new(y));
    let lo = |d: Vec<Part>, g: Goal| Goal::Lolli(d, Box::new(g));
    // a -o a -o a -o (a , erase): 3
    let g = lo(
        vec![fa()],
        lo(vec![fa()], lo(vec![fa()], t(a(), Goal::Erase))),
    );
    assert_eq!(count(g), Some(3));
    // a -o b -o (erase & a): 0
    assert_eq!(
        count(lo(vec![fa()], lo(vec![fb()], w(Goal::Erase, a())))),
        Some(0)
    );
    // a -o b -o (erase & (a , erase)): 1
    let g = lo(
        vec![fa()],
        lo(vec![fb()], w(Goal::Erase, t(a(), Goal::Erase))),
    );
    assert_eq!(count(g), Some(1));
    // (a & b) -o (a & b) -o ((a , a) & (a , b) & (b , b)): 8
    let ab = || {
        part(Res::With(
            Box::new(Res::Fact(atom("a"))),
            Box::new(Res::Fact(atom("b"))),
        ))
    };
    let g = w(t(a(), a()), w(t(a(), b()), t(b(), b())));
    assert_eq!(count(lo(vec![ab()], lo(vec![ab()], g))), Some(8));
    // a -o {erase}: 0;  a -o b -o (a & b): 0
    assert_eq!(
        count(lo(vec![fa()], Goal::Bang(Box::new(Goal::Erase)))),
        Some(0)
    );
    assert_eq!(count(lo(vec![fa()], lo(vec![fb()], w(a(), b())))), Some(0));
    // forall x \ exists Y \ Y = x: 1;  exists Y \ forall x \ Y = x: 0
    let eq = |s, t| Goal::Eq(s, t);
    let fe = Goal::Forall(
        0,
        Box::new(Goal::Exists(
            1,
            Box::new(eq(Term::Bound(1), Term::Bound(0))),
        )),
    );
    assert_eq!(count(fe), Some(1));
    let ef = Goal::Exists(
        1,
        Box::new(Goal::Forall(
            0,
            Box::new(eq(Term::Bound(1), Term::Bound(0))),
        )),
    );
    assert_eq!(count(ef), Some(0));
    // forall x \ exists Y \ (X = f Y , Y = x): 0 (X would hold x through Y)
    let x = Term::Var(0);
    let fy = Term::F(Box::new(Term::Bound(1)));
    let leak = Goal::Forall(
        0,
        Box::new(Goal::Exists(
            1,
            Box::new(t(eq(x, fy), eq(Term::Bound(1), Term::Bound(0)))),
        )),
    );
    assert_eq!(Reference::new(&[]).answers(&leak, 1), Some(vec![]));
    assert_eq!(
        engine_answers("", &goal_text(&leak), Mode::Plain),
        Ok(vec![]),
        "{}",
        goal_text(&leak)
    );
}
