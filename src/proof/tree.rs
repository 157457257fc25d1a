//! The proof of one answer as an owned tree: what the library hands out,
//! what the printers show and what the checker verifies.
//!
//! A [`Proof`] holds the query, the program clauses the proof may use (the
//! linear resources of the program must each be used exactly once) and the
//! root [`Node`].  One node per rule application, children in left-to-right
//! proof order; every term is instantiated by the answer's substitution.
//! Linear resources and clauses are named by their *entry*: the number the
//! interpreter gave the clause when it was loaded or assumed; entries are
//! unique within one proof.

use super::term::Term;

/// The rule of a proof step: the engine's own record of it.
pub type RuleName = crate::engine::Rule;

impl RuleName {
    /// The name used in every output format (`or_left`, `tensor`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            RuleName::Atom => "atom",
            RuleName::Builtin => "builtin",
            RuleName::One => "one",
            RuleName::Erase => "erase",
            RuleName::Bang => "bang",
            RuleName::Tensor => "tensor",
            RuleName::With => "with",
            RuleName::Lolli => "lolli",
            RuleName::Imp => "imp",
            RuleName::Forall => "forall",
            RuleName::Exists => "exists",
            RuleName::OrLeft => "or_left",
            RuleName::OrRight => "or_right",
            RuleName::Guard => "guard",
        }
    }
}

/// A clause of the context: a program clause, a linear resource of the
/// program, or a clause assumed by `-o` / `=>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    /// Its entry (unique within the proof).
    pub entry: u32,
    /// Whether it is linear (must be used exactly once).
    pub linear: bool,
    /// The clause, with its universally quantified variables as
    /// [`Term::Slot`]s.
    pub clause: Term,
    /// The clause, printed.  A clause that a `-o` or `=>` of this proof
    /// assumed prints as that goal wrote it: with its quantifiers
    /// (`forall x \ p x`, where `clause` has a slot for `x`), and in
    /// braces (`{a}`) when a `-o` assumed it for unbounded use.
    pub text: String,
    /// Where it was written (file and 1-based line), for program clauses.
    pub origin: Option<(String, u32)>,
}

/// The clause an atom node backchained on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClauseUse {
    /// The entry of the clause or resource used.
    pub entry: u32,
    /// Where the clause was written (file and 1-based line), if in a source.
    pub origin: Option<(String, u32)>,
    /// The clause instance: the clause with its variables instantiated.
    pub instance: Term,
    /// The instance, printed.
    pub instance_text: String,
}

/// The term a quantifier rule chose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    /// `forall`: the fresh constant; `exists`: the witness term.
    pub term: Term,
    /// The term, printed.
    pub text: String,
}

/// One rule application.  Cloning, comparing and `Debug` recurse on the
/// children through [`crate::util::deep`], and dropping does not recurse:
/// a proof is as deep as the recursion it records.
#[derive(Eq)]
pub struct Node {
    /// The rule.
    pub rule: RuleName,
    /// The goal it proves.
    pub goal: Term,
    /// The goal, printed.
    pub goal_text: String,
    /// Atom: the clause used.
    pub clause: Option<ClauseUse>,
    /// Atom: the linear resource it used (if the clause was one); erase:
    /// every resource it swallowed.
    pub consumed: Vec<Resource>,
    /// Lolli / imp: the clauses assumed, in the order written.
    pub assumed: Vec<Resource>,
    /// Forall / exists: the chosen term.
    pub witness: Option<Witness>,
    /// The proofs of the premises, left to right.
    pub children: Vec<Node>,
}

impl Node {
    /// A node with no details and no children.
    pub fn new(rule: RuleName, goal: Term, goal_text: String) -> Node {
        Node {
            rule,
            goal,
            goal_text,
            clause: None,
            consumed: Vec::new(),
            assumed: Vec::new(),
            witness: None,
            children: Vec::new(),
        }
    }

    /// The node at `path` (child indices from this node).
    pub fn at(&self, path: &[usize]) -> Option<&Node> {
        let mut n = self;
        for &i in path {
            n = n.children.get(i)?;
        }
        Some(n)
    }

    /// The node at `path`, mutably (for building and for tests that tamper).
    pub fn at_mut(&mut self, path: &[usize]) -> Option<&mut Node> {
        let mut n = self;
        for &i in path {
            n = n.children.get_mut(i)?;
        }
        Some(n)
    }

    /// The length of the longest path from this node to a leaf.
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut stack = vec![(0usize, self)];
        while let Some((d, n)) = stack.pop() {
            deepest = deepest.max(d);
            stack.extend(n.children.iter().map(|c| (d + 1, c)));
        }
        deepest
    }

    /// Every node in preorder.
    pub fn nodes(&self) -> Vec<&Node> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(n) = stack.pop() {
            stack.extend(n.children.iter().rev());
            out.push(n);
        }
        out
    }

    /// Every node in preorder with its path (the paths cost the depth each:
    /// for small proofs and tests).
    pub fn preorder(&self) -> Vec<(Vec<usize>, &Node)> {
        let mut out = Vec::new();
        let mut stack: Vec<(Vec<usize>, &Node)> = vec![(Vec::new(), self)];
        while let Some((path, n)) = stack.pop() {
            for (i, c) in n.children.iter().enumerate().rev() {
                let mut p = path.clone();
                p.push(i);
                stack.push((p, c));
            }
            out.push((path, n));
        }
        out
    }
}

impl Clone for Node {
    fn clone(&self) -> Node {
        crate::util::deep(|| Node {
            rule: self.rule,
            goal: self.goal.clone(),
            goal_text: self.goal_text.clone(),
            clause: self.clause.clone(),
            consumed: self.consumed.clone(),
            assumed: self.assumed.clone(),
            witness: self.witness.clone(),
            children: self.children.clone(),
        })
    }
}

impl PartialEq for Node {
    fn eq(&self, other: &Node) -> bool {
        crate::util::deep(|| {
            self.rule == other.rule
                && self.goal == other.goal
                && self.goal_text == other.goal_text
                && self.clause == other.clause
                && self.consumed == other.consumed
                && self.assumed == other.assumed
                && self.witness == other.witness
                && self.children == other.children
        })
    }
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::util::deep(|| {
            f.debug_struct("Node")
                .field("rule", &self.rule)
                .field("goal", &self.goal)
                .field("goal_text", &self.goal_text)
                .field("clause", &self.clause)
                .field("consumed", &self.consumed)
                .field("assumed", &self.assumed)
                .field("witness", &self.witness)
                .field("children", &self.children)
                .finish()
        })
    }
}

impl Drop for Node {
    /// Drop deep trees without recursion (a proof can be as deep as the
    /// recursion it records).
    fn drop(&mut self) {
        let mut stack = std::mem::take(&mut self.children);
        while let Some(mut n) = stack.pop() {
            stack.append(&mut n.children);
        }
    }
}

/// The derivation of one answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// The query, instantiated by the answer.
    pub query: Term,
    /// The program clauses available to the query: every linear resource of
    /// the program (each must be used exactly once) and every unbounded
    /// clause the proof uses.
    pub program: Vec<Resource>,
    /// The root of the derivation.
    pub root: Node,
}

/// Write a path of child indices as `root`, or `0.1.1`.
pub fn path_text(path: &[usize]) -> String {
    if path.is_empty() {
        "root".to_string()
    } else {
        path.iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(".")
    }
}
