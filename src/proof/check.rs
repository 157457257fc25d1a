//! An independent proof checker: given the program's clauses, the query and
//! a recorded [`Node`] tree, verify that every node is a correct application
//! of its rule and that every linear resource is used exactly once.
//!
//! This module shares nothing with the search: it reads only the owned
//! terms of a [`Proof`], splits clauses and assumptions itself, and keeps
//! its own account of resources.  The rules are those of Lolli's
//! resource-management calculus read declaratively:
//!
//! - Every step runs with a set Δ of available linear resources (entries)
//!   and a scope of usable clauses.  A step *uses* some of Δ; premises of
//!   `,`, of a clause body and of a guard share Δ in sequence (what the
//!   first uses, the next cannot).
//! - atom: the clause must be in scope, linear ones must be in Δ (and are
//!   used); the recorded instance must be an instance of the clause; one of
//!   its alternatives must have the goal as head and the premises must prove
//!   its body goals in order (`R <= G` / `G => R` bodies as `{G}`).
//! - `D -o G` / `D => G`: the assumed entries must be exactly the clauses of
//!   `D` (split at `,`, `{R}` unbounded); the premise proves `G` with them;
//!   every linear one must be used inside (an `erase` that swallowed it counts).
//! - `erase`: uses exactly the resources it lists (each must be in Δ) and may
//!   stand for more (its step is *slack*).  `{G}`: the premise gets no linear
//!   resources.  `G1 & G2`: both premises start from the same Δ and must use
//!   the same resources, except that a slack premise may use fewer.
//! - At the root, every linear resource of the program must be used.
//!
//! Terms are compared by what they denote: a variable application
//! `'$apply' F x` whose function `F` is bound to a name or compound term is
//! that term applied to `x` wherever it occurs (a head, a goal, a side of
//! `=`), as the machine unifies and calls it (see `same`).
//!
//! DIVERGENCE from a full certificate: a guard's else branch is accepted
//! without proving that its condition has no proof (that needs search), and
//! the clauses a module load (`M --o G`) assumes are taken as recorded (their
//! text is in the module file).  Built-ins are trusted except `=`.

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use super::term::Term;
use super::tree::{path_text, Node, Proof, Resource, RuleName};
use crate::builtins::Builtin;

/// What is wrong with a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The root does not prove the query.
    NotTheQuery {
        /// The query.
        query: String,
    },
    /// The goal does not have the form the rule proves.
    Shape {
        /// The form expected, in words.
        expected: &'static str,
    },
    /// The step has the wrong number of premises.
    Premises {
        /// How many the rule needs.
        expected: usize,
        /// How many it has.
        found: usize,
    },
    /// A premise proves the wrong goal.
    Premise {
        /// Which premise (0-based).
        index: usize,
        /// The goal it should prove.
        expected: String,
        /// The goal it proves.
        found: String,
    },
    /// An atom step names no clause.
    NoClause,
    /// The clause named is not in the context at this step.
    NotInScope {
        /// Its entry.
        entry: u32,
    },
    /// A linear resource used here is not available: it was used before, or
    /// `{}` / `&` hides it.
    Unavailable {
        /// The resource, printed.
        resource: String,
    },
    /// The recorded instance is not an instance of the clause.
    NotAnInstance {
        /// The instance.
        instance: String,
        /// The clause.
        clause: String,
    },
    /// No alternative of the clause instance has the goal as its head.
    Head {
        /// The instance.
        instance: String,
    },
    /// The premises do not prove the body of the clause instance.
    Body {
        /// The instance.
        instance: String,
        /// What differs.
        detail: String,
    },
    /// A linear resource is never used.
    Unused {
        /// The resource, printed.
        resource: String,
    },
    /// The assumed clauses are not those of the goal.
    Assumed {
        /// What differs.
        detail: String,
    },
    /// The two premises of `&` use different resources.
    With {
        /// What differs.
        detail: String,
    },
    /// A `forall` constant is not fresh.
    NotFresh {
        /// The constant.
        constant: String,
    },
    /// A quantifier step records no witness.
    NoWitness,
    /// A built-in that does not hold.
    Builtin {
        /// What is wrong.
        detail: String,
    },
}

/// A rejected proof: the step and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError {
    /// Child indices from the root to the step.
    pub path: Vec<usize>,
    /// The step's rule.
    pub rule: RuleName,
    /// The step's goal, printed.
    pub goal: String,
    /// What is wrong.
    pub problem: Problem,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::NotTheQuery { query } => write!(f, "the proof is not a proof of `{query}`"),
            Problem::Shape { expected } => write!(f, "the goal is not {expected}"),
            Problem::Premises { expected, found } => {
                write!(f, "the rule needs {expected} premise(s), found {found}")
            }
            Problem::Premise {
                index,
                expected,
                found,
            } => write!(
                f,
                "premise {index} should prove `{expected}` but proves `{found}`"
            ),
            Problem::NoClause => write!(f, "no clause is recorded for this atom"),
            Problem::NotInScope { entry } => {
                write!(f, "clause #{entry} is not in the context at this step")
            }
            Problem::Unavailable { resource } => write!(
                f,
                "the linear resource `{resource}` is not available here: \
                 it was already used, or is hidden by {{}} or &"
            ),
            Problem::NotAnInstance { instance, clause } => {
                write!(
                    f,
                    "`{instance}` is not an instance of the clause `{clause}`"
                )
            }
            Problem::Head { instance } => {
                write!(f, "no head of the clause instance `{instance}` is the goal")
            }
            Problem::Body { instance, detail } => write!(
                f,
                "the premises do not prove the body of `{instance}`: {detail}"
            ),
            Problem::Unused { resource } => write!(
                f,
                "the linear resource `{resource}` is never used (nor swallowed by erase)"
            ),
            Problem::Assumed { detail } => write!(f, "wrong assumptions: {detail}"),
            Problem::With { detail } => write!(f, "the branches of & disagree: {detail}"),
            Problem::NotFresh { constant } => {
                write!(f, "the constant `{constant}` is not fresh")
            }
            Problem::NoWitness => write!(f, "no witness is recorded"),
            Problem::Builtin { detail } => write!(f, "{detail}"),
        }
    }
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "step {} ({} `{}`): {}",
            path_text(&self.path),
            self.rule.as_str(),
            self.goal,
            self.problem
        )
    }
}

impl std::error::Error for CheckError {}

impl Proof {
    /// Check this proof against its own program and query.
    pub fn check(&self) -> Result<(), CheckError> {
        check(&self.program, &self.query, &self.root)
    }
}

/// Check that `root` proves `query` from the clauses `program`, using each
/// linear resource of the program exactly once.
pub fn check(program: &[Resource], query: &Term, root: &Node) -> Result<(), CheckError> {
    let mut c = Checker {
        scope: HashMap::new(),
        path: Vec::new(),
    };
    let mut avail = BTreeSet::new();
    for r in program {
        c.scope.insert(r.entry, r);
        if r.linear {
            avail.insert(r.entry);
        }
    }
    if !same(&normalize(query), &root.goal) {
        return Err(c.fail(
            root,
            Problem::NotTheQuery {
                query: query.to_string(),
            },
        ));
    }
    c.node(root, &mut avail)?;
    if let Some(e) = avail.iter().next() {
        return Err(c.fail(
            root,
            Problem::Unused {
                resource: c.text(*e),
            },
        ));
    }
    Ok(())
}

struct Checker<'p> {
    /// The clauses usable at the current step, by entry.
    scope: HashMap<u32, &'p Resource>,
    /// The path of the current step.
    path: Vec<usize>,
}

/// A body goal of a clause alternative.
enum BodyGoal<'t> {
    Goal(&'t Term),
    Bang(&'t Term),
}

impl<'p> Checker<'p> {
    fn fail(&self, n: &Node, problem: Problem) -> CheckError {
        CheckError {
            path: self.path.clone(),
            rule: n.rule,
            goal: n.goal_text.clone(),
            problem,
        }
    }

    fn text(&self, e: u32) -> String {
        self.scope
            .get(&e)
            .map_or_else(|| format!("#{e}"), |r| r.text.clone())
    }

    /// Check step `n` with available resources `avail` (what it uses is
    /// removed).  Returns whether the step is slack (contains an `erase`
    /// that may stand for more resources).
    fn node(&mut self, n: &'p Node, avail: &mut BTreeSet<u32>) -> Result<bool, CheckError> {
        crate::util::deep(|| {
            let g = &n.goal;
            match n.rule {
                RuleName::One => {
                    self.shape(n, g.is("true", 0), "`true`")?;
                    self.premises(n, &[])?;
                    Ok(false)
                }
                RuleName::Erase => {
                    self.shape(n, g.is("erase", 0), "`erase`")?;
                    self.premises(n, &[])?;
                    for r in &n.consumed {
                        self.take(n, r.entry, avail)?;
                    }
                    Ok(true)
                }
                RuleName::Tensor => {
                    self.shape(n, g.is(",", 2), "a tensor `G1 , G2`")?;
                    self.sequence(n, &[arg(g, 0), arg(g, 1)], avail)
                }
                RuleName::OrLeft | RuleName::OrRight => {
                    self.shape(n, g.is(";", 2), "a disjunction `G1 ; G2`")?;
                    let side = if n.rule == RuleName::OrLeft { 0 } else { 1 };
                    self.sequence(n, &[arg(g, side)], avail)
                }
                RuleName::Guard => {
                    self.shape(n, g.is("->", 3), "a guard `G1 -> G2 | G3`")?;
                    if n.children.len() == 2 {
                        self.sequence(n, &[arg(g, 0), arg(g, 1)], avail)
                    } else {
                        self.sequence(n, &[arg(g, 2)], avail)
                    }
                }
                RuleName::Bang => {
                    self.shape(n, g.is("{}", 1), "a bang `{G}`")?;
                    let mut none = BTreeSet::new();
                    self.sequence(n, &[arg(g, 0)], &mut none)?;
                    Ok(false)
                }
                RuleName::With => {
                    self.shape(n, g.is("&", 2), "a with `G1 & G2`")?;
                    self.with(n, avail)
                }
                RuleName::Lolli | RuleName::Imp => self.implication(n, avail),
                RuleName::Forall | RuleName::Exists => self.quantifier(n, avail),
                RuleName::Builtin => self.builtin(n, avail),
                RuleName::Atom => self.atom(n, avail),
            }
        })
    }

    fn shape(&self, n: &Node, ok: bool, expected: &'static str) -> Result<(), CheckError> {
        if ok {
            Ok(())
        } else {
            Err(self.fail(n, Problem::Shape { expected }))
        }
    }

    /// The premises of `n` must prove `goals` (normalized), in order.
    fn premises(&self, n: &Node, goals: &[Term]) -> Result<(), CheckError> {
        if n.children.len() != goals.len() {
            return Err(self.fail(
                n,
                Problem::Premises {
                    expected: goals.len(),
                    found: n.children.len(),
                },
            ));
        }
        for (i, (c, g)) in n.children.iter().zip(goals).enumerate() {
            let g = normalize(g);
            if !same(&c.goal, &g) {
                return Err(self.fail(
                    n,
                    Problem::Premise {
                        index: i,
                        expected: g.to_string(),
                        found: c.goal_text.clone(),
                    },
                ));
            }
        }
        Ok(())
    }

    /// Check that the premises prove `goals` one after the other, sharing
    /// `avail` in sequence.
    fn sequence(
        &mut self,
        n: &'p Node,
        goals: &[Term],
        avail: &mut BTreeSet<u32>,
    ) -> Result<bool, CheckError> {
        self.premises(n, goals)?;
        let mut slack = false;
        for (i, c) in n.children.iter().enumerate() {
            self.path.push(i);
            let s = self.node(c, avail)?;
            self.path.pop();
            slack |= s;
        }
        Ok(slack)
    }

    /// Use linear resource `e`.
    fn take(&self, n: &Node, e: u32, avail: &mut BTreeSet<u32>) -> Result<(), CheckError> {
        match self.scope.get(&e) {
            None => Err(self.fail(n, Problem::NotInScope { entry: e })),
            Some(r) if !r.linear => Err(self.fail(
                n,
                Problem::Builtin {
                    detail: format!("`{}` is not a linear resource", r.text),
                },
            )),
            Some(r) => {
                if avail.remove(&e) {
                    Ok(())
                } else {
                    Err(self.fail(
                        n,
                        Problem::Unavailable {
                            resource: r.text.clone(),
                        },
                    ))
                }
            }
        }
    }

    fn with(&mut self, n: &'p Node, avail: &mut BTreeSet<u32>) -> Result<bool, CheckError> {
        let g = &n.goal;
        self.premises(n, &[arg(g, 0), arg(g, 1)])?;
        let before = avail.clone();
        let mut uses = Vec::new();
        for (i, c) in n.children.iter().enumerate() {
            let mut a = before.clone();
            self.path.push(i);
            let slack = self.node(c, &mut a)?;
            self.path.pop();
            let used: BTreeSet<u32> = before.difference(&a).copied().collect();
            uses.push((used, slack));
        }
        let [(u1, s1), (u2, s2)] = [uses[0].clone(), uses[1].clone()];
        let describe = |set: &BTreeSet<u32>| {
            let v: Vec<String> = set.iter().map(|e| format!("`{}`", self.text(*e))).collect();
            if v.is_empty() {
                "nothing".to_string()
            } else {
                v.join(", ")
            }
        };
        let used = match (s1, s2) {
            (false, false) if u1 != u2 => {
                return Err(self.fail(
                    n,
                    Problem::With {
                        detail: format!(
                            "the left uses {} but the right uses {}",
                            describe(&u1),
                            describe(&u2)
                        ),
                    },
                ))
            }
            (false, true) if !u2.is_subset(&u1) => {
                let extra = u2.difference(&u1).copied().collect();
                return Err(self.fail(
                    n,
                    Problem::With {
                        detail: format!("only the right uses {}", describe(&extra)),
                    },
                ));
            }
            (true, false) if !u1.is_subset(&u2) => {
                let extra = u1.difference(&u2).copied().collect();
                return Err(self.fail(
                    n,
                    Problem::With {
                        detail: format!("only the left uses {}", describe(&extra)),
                    },
                ));
            }
            (false, _) => u1,
            (true, false) => u2,
            (true, true) => u1.union(&u2).copied().collect(),
        };
        *avail = before.difference(&used).copied().collect();
        Ok(s1 && s2)
    }

    fn implication(&mut self, n: &'p Node, avail: &mut BTreeSet<u32>) -> Result<bool, CheckError> {
        let g = &n.goal;
        let imp = n.rule == RuleName::Imp;
        let (d, body) = match g.functor() {
            Some(("-o", [d, b])) if !imp => (Some(d), b),
            Some((":-", [b, d])) if !imp => (Some(d), b),
            Some(("--o", [_, b])) if !imp => (None, b),
            Some(("=>", [d, b])) if imp => (Some(d), b),
            Some(("<=", [b, d])) if imp => (Some(d), b),
            _ => {
                let expected = if imp {
                    "an implication `D => G`"
                } else {
                    "a linear implication `D -o G`"
                };
                return Err(self.fail(n, Problem::Shape { expected }));
            }
        };
        if let Some(d) = d {
            self.assumptions(n, d, imp)?;
        }
        for r in &n.assumed {
            if self.scope.contains_key(&r.entry) {
                return Err(self.fail(
                    n,
                    Problem::Assumed {
                        detail: format!("clause #{} is assumed twice", r.entry),
                    },
                ));
            }
        }
        for r in &n.assumed {
            self.scope.insert(r.entry, r);
            if r.linear {
                avail.insert(r.entry);
            }
        }
        let slack = self.sequence(n, std::slice::from_ref(body), avail)?;
        for r in &n.assumed {
            if r.linear && avail.remove(&r.entry) {
                return Err(self.fail(
                    n,
                    Problem::Unused {
                        resource: r.text.clone(),
                    },
                ));
            }
        }
        for r in &n.assumed {
            self.scope.remove(&r.entry);
        }
        Ok(slack)
    }

    /// The recorded assumptions of `n` must be the clauses of `d`.
    fn assumptions(&self, n: &Node, d: &Term, imp: bool) -> Result<(), CheckError> {
        let mut parts = Vec::new();
        split(d, imp, &mut parts);
        if parts.len() != n.assumed.len() {
            return Err(self.fail(
                n,
                Problem::Assumed {
                    detail: format!(
                        "the goal assumes {} clause(s), the step records {}",
                        parts.len(),
                        n.assumed.len()
                    ),
                },
            ));
        }
        for ((part, bang), r) in parts.iter().zip(&n.assumed) {
            let linear = !imp && !bang;
            let schema = clause_schema(part);
            if r.linear != linear || !alpha_eq(&schema, &r.clause, &mut HashMap::new()) {
                return Err(self.fail(
                    n,
                    Problem::Assumed {
                        detail: format!(
                            "the step records `{}` ({}) where the goal assumes `{}` ({})",
                            r.text,
                            if r.linear { "linear" } else { "unbounded" },
                            part,
                            if linear { "linear" } else { "unbounded" }
                        ),
                    },
                ));
            }
        }
        Ok(())
    }

    fn quantifier(&mut self, n: &'p Node, avail: &mut BTreeSet<u32>) -> Result<bool, CheckError> {
        let g = &n.goal;
        let forall = n.rule == RuleName::Forall;
        let q = if forall { "forall" } else { "exists" };
        let (id, body) = match g.functor() {
            Some((name, [Term::Bound { id, .. }, body])) if name == q => (*id, body),
            _ => {
                let expected = if forall {
                    "a `forall x \\ G`"
                } else {
                    "an `exists x \\ G`"
                };
                return Err(self.fail(n, Problem::Shape { expected }));
            }
        };
        let Some(w) = &n.witness else {
            return Err(self.fail(n, Problem::NoWitness));
        };
        if forall {
            // An eigenvariable, or the symbol made for one that names a
            // predicate.
            let fresh = matches!(w.term, Term::Const { .. } | Term::Atom(_))
                && !g.contains(&w.term)
                && !self.scope.values().any(|r| r.clause.contains(&w.term));
            if !fresh {
                return Err(self.fail(
                    n,
                    Problem::NotFresh {
                        constant: w.text.clone(),
                    },
                ));
            }
        }
        self.sequence(n, &[body.substitute(id, &w.term)], avail)
    }

    fn builtin(&mut self, n: &'p Node, avail: &mut BTreeSet<u32>) -> Result<bool, CheckError> {
        let g = &n.goal;
        let Some((name, args)) = g.functor() else {
            return Err(self.fail(
                n,
                Problem::Shape {
                    expected: "a built-in predicate",
                },
            ));
        };
        let Some(b) = Builtin::lookup(name, args.len() as u32) else {
            return Err(self.fail(
                n,
                Problem::Shape {
                    expected: "a built-in predicate",
                },
            ));
        };
        if b == Builtin::Unify && !same(&args[0], &args[1]) {
            return Err(self.fail(
                n,
                Problem::Builtin {
                    detail: "the two sides of `=` differ".into(),
                },
            ));
        }
        let goals: Vec<Term> = match b {
            Builtin::Telling | Builtin::Seeing => vec![args[1].clone()],
            Builtin::Timing | Builtin::Once => vec![args[0].clone()],
            _ => Vec::new(),
        };
        self.sequence(n, &goals, avail)
    }

    fn atom(&mut self, n: &'p Node, avail: &mut BTreeSet<u32>) -> Result<bool, CheckError> {
        let g = &n.goal;
        let atomic = match g.functor() {
            Some((name, args)) => {
                !is_connective(name, args.len())
                    && Builtin::lookup(name, args.len() as u32).is_none()
            }
            None => false,
        };
        self.shape(n, atomic, "an atomic formula")?;
        let Some(cu) = &n.clause else {
            return Err(self.fail(n, Problem::NoClause));
        };
        let Some(&r) = self.scope.get(&cu.entry) else {
            return Err(self.fail(n, Problem::NotInScope { entry: cu.entry }));
        };
        if r.linear {
            self.take(n, cu.entry, avail)?;
        }
        if !matches(&r.clause, &cu.instance, &mut HashMap::new()) {
            return Err(self.fail(
                n,
                Problem::NotAnInstance {
                    instance: cu.instance_text.clone(),
                    clause: r.text.clone(),
                },
            ));
        }
        let mut found = Vec::new();
        alternatives(&cu.instance, Vec::new(), &mut found);
        let mut first_problem = None;
        for (_, body) in found.iter().filter(|(h, _)| same(h, g)) {
            match self.body_fits(n, body) {
                Ok(()) => {
                    let goals: Vec<Term> = body
                        .iter()
                        .map(|b| match b {
                            BodyGoal::Goal(t) => (*t).clone(),
                            BodyGoal::Bang(t) => Term::app("{}", vec![(*t).clone()]),
                        })
                        .collect();
                    return self.sequence(n, &goals, avail);
                }
                Err(detail) => {
                    first_problem.get_or_insert(detail);
                }
            }
        }
        Err(self.fail(
            n,
            match first_problem {
                None => Problem::Head {
                    instance: cu.instance_text.clone(),
                },
                Some(detail) => Problem::Body {
                    instance: cu.instance_text.clone(),
                    detail,
                },
            },
        ))
    }

    /// Whether the premises of `n` prove the goals of `body` (and `{G}`
    /// bodies by bang steps).
    fn body_fits(&self, n: &Node, body: &[BodyGoal<'_>]) -> Result<(), String> {
        if body.len() != n.children.len() {
            return Err(format!(
                "the body has {} goal(s), the step has {} premise(s)",
                body.len(),
                n.children.len()
            ));
        }
        for (i, (b, c)) in body.iter().zip(&n.children).enumerate() {
            let want = match b {
                BodyGoal::Goal(t) => normalize(t),
                BodyGoal::Bang(t) => Term::app("{}", vec![(*t).clone()]),
            };
            if !same(&c.goal, &want) {
                return Err(format!(
                    "premise {i} should prove `{want}` but proves `{}`",
                    c.goal_text
                ));
            }
        }
        Ok(())
    }
}

fn arg(t: &Term, i: usize) -> Term {
    t.arg(i).cloned().unwrap_or(Term::Atom("?".into()))
}

/// The goal the machine runs for a goal term: `load M` is `M --o top`.
/// (A variable application needs no rewriting here: [`same`] compares
/// terms by what they denote.)
fn normalize(t: &Term) -> Term {
    match t.functor() {
        Some(("load", [m])) => Term::app("--o", vec![m.clone(), Term::Atom("top".into())]),
        _ => t.clone(),
    }
}

/// The term a variable application denotes: `'$apply' F x1 .. xn` whose
/// function `F` is a name `f` (or a compound term `f y1 .. yk`, or another
/// such application) is `f x1 .. xn` (`f y1 .. yk x1 .. xn`), as the
/// language reads it once `F` is bound (LANGUAGE.md, section 2).  `None`
/// for any other term, and for an application whose function is a
/// variable or a number, which denotes only itself.
fn applied(t: &Term) -> Option<Term> {
    let Some(("$apply", [f, rest @ ..])) = t.functor() else {
        return None;
    };
    let mut f = applied(f).unwrap_or_else(|| f.clone());
    let (name, mut args) = match &mut f {
        Term::Atom(name) => (std::mem::take(name), Vec::new()),
        Term::App(name, args) if name != "$apply" => (std::mem::take(name), std::mem::take(args)),
        // An application in the head position of one whose function is a
        // variable: `(F a) b` is the one application `F a b`.
        Term::App(_, args) if matches!(args.first(), Some(Term::Var(_))) => {
            ("$apply".to_string(), std::mem::take(args))
        }
        _ => return None,
    };
    args.extend(rest.iter().cloned());
    Some(Term::app(name, args))
}

/// Whether `a` and `b` denote the same term: equality, reading a variable
/// application as the term it denotes ([`applied`]) wherever it occurs, as
/// the machine's unification does (so `p a` is the head of the assumed
/// clause `F a` once `F = p`).
fn same(a: &Term, b: &Term) -> bool {
    crate::util::deep(|| {
        match (a, b) {
            // Same name and arity: an application equals one with as many
            // arguments exactly when its function and arguments do.
            (Term::App(f, xs), Term::App(g, ys)) if f == g && xs.len() == ys.len() => {
                xs.iter().zip(ys).all(|(x, y)| same(x, y))
            }
            _ => match (applied(a), applied(b)) {
                (None, None) => a == b,
                (x, y) => same(x.as_ref().unwrap_or(a), y.as_ref().unwrap_or(b)),
            },
        }
    })
}

/// The connectives, as the language defines them (the registry is shared;
/// the checking logic is not).
fn is_connective(name: &str, arity: usize) -> bool {
    crate::builtins::is_connective(name, arity as u32)
}

/// Split an assumed formula into its clauses (`D1 , D2`: D1 first), each
/// with whether it is unbounded (`{R}`, or everything under `=>`).
fn split<'t>(d: &'t Term, bang: bool, out: &mut Vec<(&'t Term, bool)>) {
    crate::util::deep(|| match d.functor() {
        Some((",", [a, b])) => {
            split(a, bang, out);
            split(b, bang, out);
        }
        Some(("{}", [r])) => split(r, true, out),
        _ => out.push((d, bang)),
    })
}

/// A clause with its clause-level `forall x \` binders replaced by slots.
fn clause_schema(c: &Term) -> Term {
    let mut next = 0;
    schema_of(c, &mut next)
}

fn schema_of(c: &Term, next: &mut u32) -> Term {
    crate::util::deep(|| match c.functor() {
        Some(("forall", [Term::Bound { id, .. }, body])) => {
            let slot = Term::Slot(*next);
            *next += 1;
            schema_of(&body.substitute(*id, &slot), next)
        }
        Some(("&", [a, b])) => Term::app("&", vec![schema_of(a, next), schema_of(b, next)]),
        Some((op @ (":-" | "<="), [r, g])) => Term::app(op, vec![schema_of(r, next), g.clone()]),
        Some((op @ ("-o" | "=>"), [g, r])) => Term::app(op, vec![g.clone(), schema_of(r, next)]),
        _ => c.clone(),
    })
}

/// Equality up to a one-to-one renaming of slots.
fn alpha_eq(a: &Term, b: &Term, map: &mut HashMap<u32, u32>) -> bool {
    crate::util::deep(|| match (a, b) {
        (Term::Slot(x), Term::Slot(y)) => match map.get(x) {
            Some(z) => z == y,
            None => {
                if map.values().any(|z| z == y) {
                    return false;
                }
                map.insert(*x, *y);
                true
            }
        },
        (Term::App(f, xs), Term::App(g, ys)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| alpha_eq(x, y, map))
        }
        _ => a == b,
    })
}

/// Whether `inst` is `schema` with its slots replaced consistently.
fn matches<'t>(schema: &Term, inst: &'t Term, bind: &mut HashMap<u32, &'t Term>) -> bool {
    crate::util::deep(|| match (schema, inst) {
        (Term::Slot(s), _) => match bind.get(s) {
            Some(t) => *t == inst,
            None => {
                bind.insert(*s, inst);
                true
            }
        },
        (Term::App(f, xs), Term::App(g, ys)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| matches(x, y, bind))
        }
        _ => schema == inst,
    })
}

/// The alternatives of a clause instance: each head with the body goals
/// proved after it matched (`R1 & R2`: both; `(H :- G1) :- G2`: body G1, G2).
fn alternatives<'t>(
    c: &'t Term,
    outer: Vec<BodyGoal<'t>>,
    out: &mut Vec<(&'t Term, Vec<BodyGoal<'t>>)>,
) {
    let with_first = |g: BodyGoal<'t>, outer: Vec<BodyGoal<'t>>| {
        let mut body = vec![g];
        body.extend(outer);
        body
    };
    match c.functor() {
        Some(("&", [a, b])) => {
            let copy: Vec<BodyGoal<'t>> = outer
                .iter()
                .map(|g| match g {
                    BodyGoal::Goal(t) => BodyGoal::Goal(t),
                    BodyGoal::Bang(t) => BodyGoal::Bang(t),
                })
                .collect();
            alternatives(a, outer, out);
            alternatives(b, copy, out);
        }
        Some((":-", [r, g])) | Some(("-o", [g, r])) => {
            alternatives(r, with_first(BodyGoal::Goal(g), outer), out)
        }
        Some(("<=", [r, g])) | Some(("=>", [g, r])) => {
            alternatives(r, with_first(BodyGoal::Bang(g), outer), out)
        }
        Some(("true", [])) => {}
        Some((name, args)) if !is_connective(name, args.len()) => out.push((c, outer)),
        // A head `F x` with F bound: the atom it denotes.
        Some(("$apply", _)) => {
            let atom = applied(c).is_some_and(
                |t| matches!(t.functor(), Some((name, args)) if !is_connective(name, args.len())),
            );
            if atom {
                out.push((c, outer));
            }
        }
        _ => {}
    }
}
