//! Building the owned [`Proof`] of the current answer from the machine's
//! proof log (`Machine::proof`, recorded when `Options::proofs` is on).
//!
//! The log holds only the successful branch, nodes in creation order (a
//! parent before its children, siblings left to right).  The proof of the
//! innermost query is the subtree of the last root node.  Terms are read
//! under the answer's substitution: program clause instances are rebuilt
//! from the clause template and the slot values the log kept; every term is
//! printed with one printer that names unbound variables as the answer does.
//!
//! Building copies clause instances to the heap (above the newest choice
//! point, so backtracking removes them); nothing else in the machine changes.

use std::collections::{BTreeSet, HashMap};

use super::term::Term;
use super::tree::{ClauseUse, Node, Proof, Resource, Witness};
use crate::engine::context::{Source, GONE};
use crate::engine::machine::{ProofNode, NONE};
use crate::engine::{Machine, Rule};
use crate::pretty::Printer;
use crate::term::Cell;

/// The proof of the current answer of the innermost query, or `None` when
/// nothing was recorded (proof recording off, or no answer yet).
/// `vars` are the query's named variables, as the answer names them.
///
/// The proof holds each step's goal as a term of its own, so its size can
/// grow with the square of the search's (a recursion over a list shows the
/// rest of the list at every level); [`build_within`] refuses to build one
/// past a bound.
pub fn build(m: &mut Machine, vars: &[(String, Cell)]) -> Option<Proof> {
    build_within(m, vars, usize::MAX).unwrap_or(None)
}

/// The size of the proof [`build`] would make now: its steps, and the term
/// cells of its goals, clause instances and witnesses (each an owned term,
/// printed too), counted up to a bound.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ProofSize {
    /// Rule applications.
    pub steps: usize,
    /// Term cells, or the bound plus one when there are more.
    pub cells: usize,
}

/// Roughly the memory one term cell of a built proof takes (the owned term
/// and its share of the printed text), for turning a memory limit into a
/// bound on cells.
///
/// Fitted to the peak memory of `--proof`, `--moves` and `--check-proofs`
/// runs (2026-11-24): `deep` of bench/deep.lolli, 10 steps and 132 cells
/// a level, takes 23.6 KB a level, 28.6 KB with the checker; `bench` of
/// bench/nrev.lolli, 99 cells a step, 12.4 KB a step, 11.4 KB with the
/// checker.  Without the checker the two fit 840 bytes a step and 115 a
/// cell; the constants round up so that the checker's runs fit too.
pub const BYTES_PER_CELL: usize = 125;

/// Roughly the memory one step of a built proof takes besides its terms'
/// cells: the node, its printed goal and resources, the checker's copy
/// (see [`BYTES_PER_CELL`]).
pub const BYTES_PER_STEP: usize = 1250;

impl ProofSize {
    /// The memory building (and printing and checking) a proof of this
    /// size takes, roughly: see [`BYTES_PER_CELL`].
    pub fn bytes(&self) -> usize {
        self.steps
            .saturating_mul(BYTES_PER_STEP)
            .saturating_add(self.cells.saturating_mul(BYTES_PER_CELL))
    }
}

/// The number of steps of the current answer's proof (`None` when nothing
/// was recorded), known without walking its terms.
pub fn steps(m: &Machine) -> Option<usize> {
    let root = m.proof.nodes.iter().rposition(|n| n.parent == NONE)?;
    Some(m.proof.nodes.len() - root)
}

/// The most term cells a proof of `steps` steps may have to be built in
/// `bytes` of memory (see [`BYTES_PER_CELL`]).
pub fn cells_within(bytes: usize, steps: usize) -> usize {
    bytes.saturating_sub(steps.saturating_mul(BYTES_PER_STEP)) / BYTES_PER_CELL
}

/// [`build`], unless the proof has more than `max_cells` term cells
/// (see [`ProofSize`]): then `Err` with its size, and nothing is built.
/// Counting stops at the bound, so a refused proof costs O(`max_cells`).
pub fn build_within(
    m: &mut Machine,
    vars: &[(String, Cell)],
    max_cells: usize,
) -> Result<Option<Proof>, ProofSize> {
    if let Some(size) = size(m, max_cells) {
        if size.cells > max_cells {
            return Err(size);
        }
    }
    Ok(build_unchecked(m, vars))
}

/// The size of the current answer's proof, counted up to `bound` cells;
/// `None` when nothing was recorded.
pub fn size(m: &Machine, bound: usize) -> Option<ProofSize> {
    let root = m.proof.nodes.iter().rposition(|n| n.parent == NONE)?;
    let nodes = &m.proof.nodes[root..];
    let mut left = bound.saturating_add(1);
    let mut stack: Vec<Cell> = Vec::new();
    for n in nodes {
        stack.push(n.goal);
        match n.rule {
            Rule::Atom if n.b != NONE => {
                // A program clause's instance: its template with the slot
                // values the log kept.
                if let Some(Source::Template { tpl, .. }) =
                    m.ctx.entries.get(n.a as usize).map(|e| e.source)
                {
                    if let Some(t) = m.templates.get(tpl as usize) {
                        left = left.saturating_sub(t.cells.len());
                        let start = n.b as usize;
                        let end = (start + t.nslots as usize).min(m.proof.slots.len());
                        stack.extend(m.proof.slots.get(start..end).unwrap_or(&[]));
                    }
                }
            }
            Rule::Forall | Rule::Exists => {
                stack.extend(m.proof.witnesses.get(n.a as usize).copied());
            }
            _ => {}
        }
        while let Some(c) = stack.pop() {
            if left == 0 {
                break;
            }
            left -= 1;
            if let Cell::Struct(a) = m.store.deref(c) {
                if let Cell::Functor(_, k) = m.store.heap.get(a) {
                    stack.extend((0..k).map(|i| m.store.heap.arg(a, i)));
                }
            }
        }
        if left == 0 {
            break;
        }
    }
    Some(ProofSize {
        steps: nodes.len(),
        cells: bound.saturating_add(1) - left,
    })
}

fn build_unchecked(m: &mut Machine, vars: &[(String, Cell)]) -> Option<Proof> {
    let root = m.proof.nodes.iter().rposition(|n| n.parent == NONE)?;
    let nodes: Vec<ProofNode> = m.proof.nodes[root..].to_vec();
    let base = root as u32;

    // The entries this proof mentions.
    let mut used: BTreeSet<u32> = BTreeSet::new();
    let mut first_assumed = m.ctx.entries.len() as u32;
    for n in &nodes {
        match n.rule {
            Rule::Atom => {
                used.insert(n.a);
            }
            Rule::Lolli | Rule::Imp if n.a != NONE && n.b != NONE => {
                first_assumed = first_assumed.min(n.a);
                used.extend(n.a..n.b);
            }
            _ => {}
        }
    }
    let erased: Vec<(usize, u32)> = m
        .proof
        .erased
        .iter()
        .filter(|(n, _)| *n >= base)
        .map(|&(n, e)| ((n - base) as usize, e))
        .collect();
    used.extend(erased.iter().map(|(_, e)| *e));

    // The program: linear entries older than the query's first assumption
    // (at the outermost level all of them; in a nested top level, those
    // still usable or used here), and the unbounded ones the proof uses.
    let outermost = m.depth() <= 1;
    let mut program: Vec<u32> = Vec::new();
    for e in 0..first_assumed.min(m.ctx.entries.len() as u32) {
        let entry = m.ctx.entries[e as usize];
        let wanted = if entry.linear {
            outermost || entry.state != GONE || used.contains(&e)
        } else {
            used.contains(&e)
        };
        if wanted {
            program.push(e);
        }
    }
    used.extend(program.iter().copied());

    // Pass 1 (mutable): clause instances and printable copies of templates.
    let mut instances: Vec<Option<Cell>> = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        if n.rule == Rule::Atom {
            instances[i] = instance_cell(m, n);
        }
    }
    let mut shown: HashMap<u32, (Cell, Vec<(Cell, String)>)> = HashMap::new();
    for &e in &used {
        if let Some(s) = display_cell(m, e) {
            shown.insert(e, s);
        }
    }

    // Pass 2: print and convert.
    let m: &Machine = m;
    let printer = Printer::new(m);
    for (name, v) in vars {
        if printer.is_unbound(*v) {
            printer.name_var(*v, name);
        }
    }
    for (_, v) in vars {
        // Number the answer's unnamed variables first, as the answer does.
        let _ = printer.term(*v);
    }
    let mut resources: HashMap<u32, Resource> = HashMap::new();
    for &e in &used {
        if let Some(r) = resource(m, &printer, vars, e, shown.get(&e)) {
            resources.insert(e, r);
        }
    }
    // What this proof's `-o` and `=>` steps assumed shows as they wrote it.
    for n in &nodes {
        if matches!(n.rule, Rule::Lolli | Rule::Imp) && n.a != NONE && n.b != NONE {
            for (e, text) in assumed_as_written(m, &printer, n) {
                if let Some(r) = resources.get_mut(&e) {
                    r.text = text;
                }
            }
        }
    }

    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate().skip(1) {
        if n.parent >= base && ((n.parent - base) as usize) < i {
            children[(n.parent - base) as usize].push(i);
        }
    }
    let mut swallowed: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
    for &(n, e) in &erased {
        if let Some(s) = swallowed.get_mut(n) {
            s.push(e);
        }
    }
    // What an erase swallowed is recorded scope by scope as each ends;
    // list it in the order the search tries resources, as `:context` and
    // the trace's `unused` lines do: the newest assumption first, one
    // assumption's parts (a file's `LINEAR` clauses) in the order written.
    // Entries are numbered so that this is the newest entry first.
    for s in &mut swallowed {
        s.sort_unstable_by(|a, b| b.cmp(a));
    }

    let mut built: Vec<Option<Node>> = vec![None; nodes.len()];
    for i in (0..nodes.len()).rev() {
        let n = nodes[i];
        let goal = to_term(m, n.goal);
        let mut node = Node::new(n.rule, goal, printer.term(n.goal));
        match n.rule {
            Rule::Atom => {
                let r = resources.get(&n.a);
                let instance = match (instances[i], m.ctx.entries.get(n.a as usize)) {
                    (Some(c), _) => Some(c),
                    (None, Some(entry)) => match entry.source {
                        Source::Heap { clause, .. } => Some(clause),
                        Source::Template { .. } => None,
                    },
                    (None, None) => None,
                };
                if let Some(c) = instance {
                    node.clause = Some(ClauseUse {
                        entry: n.a,
                        origin: r.and_then(|r| r.origin.clone()),
                        instance: to_term(m, c),
                        instance_text: printer.term(c),
                    });
                }
                if let Some(r) = r.filter(|r| r.linear) {
                    node.consumed.push(r.clone());
                }
            }
            Rule::Lolli | Rule::Imp if n.a != NONE && n.b != NONE => {
                // Entries of one assumption are numbered newest-first:
                // reverse to list them in the order written.
                node.assumed = (n.a..n.b)
                    .rev()
                    .filter_map(|e| resources.get(&e).cloned())
                    .collect();
            }
            Rule::Erase => {
                node.consumed = swallowed[i]
                    .iter()
                    .filter_map(|e| resources.get(e).cloned())
                    .collect();
            }
            Rule::Forall | Rule::Exists => {
                if let Some(&w) = m.proof.witnesses.get(n.a as usize) {
                    node.witness = Some(Witness {
                        term: to_term(m, w),
                        text: printer.term(w),
                    });
                }
            }
            _ => {}
        }
        for &c in &children[i] {
            if let Some(child) = built[c].take() {
                node.children.push(child);
            }
        }
        built[i] = Some(node);
    }
    let root = built.first_mut()?.take()?;
    Some(Proof {
        query: root.goal.clone(),
        program: program
            .iter()
            .filter_map(|e| resources.get(e).cloned())
            .collect(),
        root,
    })
}

/// The clauses that the `-o` or `=>` step `n` assumed, each with its
/// entry, printed as the step's goal writes them.  A quantified clause keeps
/// its quantifier, `forall x \ p x`: its entry holds it with `x` made a
/// variable of the clause, which would print `p X`, as an assumed `p X`
/// prints, whose `X` is *not* renamed at each use.  A part written `{R}` in
/// the `D` of `D -o G` prints `{R}`: it is assumed for unbounded use, the
/// other parts linearly (every part of `D => G` is unbounded, and prints
/// without braces).  Empty when `n` is not such a step (a module's `--o`,
/// whose clauses print as the file has them) or its parts do not match its
/// entries.
fn assumed_as_written(m: &Machine, printer: &Printer<'_>, n: &ProofNode) -> Vec<(u32, String)> {
    use crate::term::sym;
    let heap = &m.store.heap;
    let Some((f, 2, args)) = heap.functor(heap.deref(n.goal)) else {
        return Vec::new();
    };
    let d = match f {
        sym::LOLLI | sym::IMP => heap.get(args),
        sym::NECK | sym::RIMP => heap.get(crate::term::Addr(args.0 + 1)),
        _ => return Vec::new(),
    };
    let linear = f == sym::LOLLI || f == sym::NECK;
    let (mut stack, mut parts) = (Vec::new(), Vec::new());
    let split = crate::logic::clause::split_assumed(
        &heap.cells,
        &|c| heap.deref(c),
        d,
        !linear,
        &mut stack,
        &mut parts,
    );
    if split.is_err() || parts.len() as u32 != n.b - n.a {
        return Vec::new();
    }
    // `assume` made one entry per part, the last part first.
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let text = printer.term(part.clause);
            let text = if linear && part.bang {
                format!("{{{text}}}")
            } else {
                text
            };
            (n.b - 1 - i as u32, text)
        })
        .collect()
}

/// The clause instance of an atom node that used a template clause, copied
/// to the heap with the slot values the log kept.
fn instance_cell(m: &mut Machine, n: &ProofNode) -> Option<Cell> {
    if n.b == NONE {
        return None;
    }
    let entry = m.ctx.entries.get(n.a as usize).copied()?;
    let Source::Template { tpl, .. } = entry.source else {
        return None;
    };
    let t = m.templates.get(tpl as usize)?.clone();
    let start = n.b as usize;
    let vals = m.proof.slots.get(start..start + t.nslots as usize)?;
    let mut slots: Vec<Option<Cell>> = vals.iter().map(|&c| Some(c)).collect();
    Some(m.copy_template(&t, t.root, &mut slots))
}

/// A printable copy of a template entry's clause: environment slots bound,
/// the clause's own variables fresh (returned with their source names).
fn display_cell(m: &mut Machine, e: u32) -> Option<(Cell, Vec<(Cell, String)>)> {
    let entry = m.ctx.entries.get(e as usize).copied()?;
    let Source::Template { tpl, env } = entry.source else {
        return None;
    };
    let (t, c, slots) = m.copy_with_env(tpl, env)?;
    let names = slots
        .iter()
        .zip(&t.slot_names)
        .skip(t.env_len as usize)
        .filter_map(|(s, n)| Some((s.as_ref().copied()?, n.clone())))
        .filter(|(_, n)| n != "_")
        .collect();
    Some((c, names))
}

/// Entry `e` as a [`Resource`].  A program clause's variables print with
/// the names written in it, numbered where the query has the name
/// (`vars`): its `N` is not the answer's `N`.
fn resource(
    m: &Machine,
    printer: &Printer<'_>,
    vars: &[(String, Cell)],
    e: u32,
    shown: Option<&(Cell, Vec<(Cell, String)>)>,
) -> Option<Resource> {
    let entry = m.ctx.entries.get(e as usize)?;
    match entry.source {
        Source::Heap { clause, .. } => Some(Resource {
            entry: e,
            linear: entry.linear,
            clause: to_term(m, clause),
            text: printer.term(clause),
            origin: None,
        }),
        Source::Template { tpl, env } => {
            let t = m.templates.get(tpl as usize)?;
            let clause = template_term(m, &t.cells, t.root, t.env_len, env)?;
            let text = match shown {
                Some((c, names)) => {
                    // The proof's names (the query's variables, met in the
                    // module's parameters) and the clause's own ones.
                    let p = printer.fork();
                    for (name, _) in vars {
                        p.reserve(name);
                    }
                    for (v, n) in names {
                        p.name_var(*v, n);
                    }
                    let text = p.term(*c);
                    printer.absorb(p, names.iter().map(|(v, _)| *v));
                    text
                }
                None => clause.to_string(),
            };
            let origin = t.origin.as_ref().map(|(file, span)| {
                (
                    m.sources.name(*file).to_string(),
                    m.sources.line(*file, span.start),
                )
            });
            Some(Resource {
                entry: e,
                linear: entry.linear,
                clause,
                text,
                origin,
            })
        }
    }
}

/// A heap term as an owned term, under the current bindings.
pub(crate) fn to_term(m: &Machine, c: Cell) -> Term {
    crate::util::deep(|| {
        let c = m.store.deref(c);
        match c {
            Cell::Ref(a) => Term::Var(a.0),
            Cell::Atom(s) => Term::Atom(m.symbols.name(s).to_string()),
            Cell::Int(i) => Term::Int(i),
            Cell::Str(s) => Term::Str(m.symbols.string(s).to_string()),
            Cell::Eigen(id) => Term::Const {
                id,
                name: eigen_name(m, id),
            },
            Cell::Bound(id) => Term::Bound {
                id,
                name: binder_name(m, id),
            },
            Cell::Functor(f, _) => Term::Atom(m.symbols.name(f).to_string()),
            Cell::Struct(a) => match m.store.heap.get(a) {
                Cell::Functor(f, n) => Term::app(
                    m.symbols.name(f),
                    (0..n).map(|i| to_term(m, m.store.heap.arg(a, i))).collect(),
                ),
                _ => Term::Atom("?".into()),
            },
        }
    })
}

/// A template term with environment slots read from the context and the
/// other slots left as [`Term::Slot`]s.
fn template_term(m: &Machine, cells: &[Cell], c: Cell, env_len: u32, env: u32) -> Option<Term> {
    crate::util::deep(|| {
        Some(match c {
            Cell::Ref(s) if s.0 < env_len => to_term(m, *m.ctx.envs.get((env + s.0) as usize)?),
            Cell::Ref(s) => Term::Slot(s.0),
            Cell::Struct(a) => match cells.get(a.ix())? {
                Cell::Functor(f, n) => {
                    let mut args = Vec::with_capacity(*n as usize);
                    for i in 0..*n {
                        let arg = *cells.get(a.ix() + 1 + i as usize)?;
                        args.push(template_term(m, cells, arg, env_len, env)?);
                    }
                    Term::app(m.symbols.name(*f), args)
                }
                _ => return None,
            },
            other => to_term(m, other),
        })
    })
}

fn eigen_name(m: &Machine, id: u32) -> String {
    m.store
        .heap
        .eigens
        .get(id as usize)
        .map_or("c".to_string(), |i| m.symbols.name(i.name).to_string())
}

fn binder_name(m: &Machine, id: u32) -> String {
    m.binder_names
        .get(id as usize)
        .map_or("x".to_string(), |s| m.symbols.name(*s).to_string())
}
