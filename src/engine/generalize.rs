//! Turning heap terms into templates, and universal closure.
//!
//! A clause assumed during search normally uses its variables as they are
//! (they are the logic variables of the enclosing proof).  A clause that
//! quantifies (`forall x \ R`) must rename `x` at each use, so it is
//! compiled into a [`Template`] on the fly: its free variables become the
//! template's environment slots (shared, not renamed) and each clause-level
//! quantified name becomes a slot of its own (fresh at every use).

use crate::logic::clause::{clause_alts, ClauseError};
use crate::logic::keys::head_keys;
use crate::logic::template::Template;
use crate::term::{sym, Addr, Cell};

use super::machine::Machine;

/// Compile heap clause `clause` into a template; returns it with the
/// environment cells (the clause's free variables).
pub fn template_of_heap(
    m: &mut Machine,
    clause: Cell,
) -> Result<(Template, Vec<Cell>), ClauseError> {
    let heap = &m.store.heap;
    let mut cells: Vec<Cell> = Vec::new();
    let mut env: Vec<Cell> = Vec::new();
    // (source cell, destination index in `cells`, or None for the root)
    let mut root = Cell::Atom(sym::TRUE);
    let mut tasks: Vec<(Cell, Option<usize>)> = vec![(clause, None)];
    while let Some((src, dst)) = tasks.pop() {
        let c = heap.deref(src);
        let out = match c {
            Cell::Ref(_) => {
                let slot = match env.iter().position(|&e| e == c) {
                    Some(i) => i,
                    None => {
                        env.push(c);
                        env.len() - 1
                    }
                };
                Cell::Ref(Addr(slot as u32))
            }
            Cell::Struct(a) => {
                let Cell::Functor(f, n) = heap.get(a) else {
                    return Err(ClauseError::NotAClause(c));
                };
                let base = cells.len();
                cells.push(Cell::Functor(f, n));
                for i in 0..n {
                    cells.push(Cell::Atom(sym::NIL));
                    let _ = i;
                }
                for i in (0..n).rev() {
                    tasks.push((heap.get(Addr(a.0 + 1 + i)), Some(base + 1 + i as usize)));
                }
                Cell::Struct(Addr(base as u32))
            }
            other => other,
        };
        match dst {
            Some(d) => cells[d] = out,
            None => root = out,
        }
    }
    let env_len = env.len() as u32;
    let mut nslots = env_len;
    // Clause-level quantifiers: replace by their bodies, binding the name to a fresh slot.
    let mut binders = Vec::new();
    let root = strip_clause_binders(&mut cells, root, &mut nslots, &mut binders);
    let slot_names = slot_names(m, env_len, &binders);
    let mut alts = Vec::new();
    clause_alts(&cells, &|c| c, root, &mut alts)?;
    let mut scratch = Vec::new();
    let keys = alts
        .iter()
        .map(|a| head_keys(&cells, &[], |c| c, a.head, &mut scratch))
        .collect();
    let ends = crate::logic::template::block_ends(&cells);
    let mut conjuncts = crate::logic::template::conjuncts_of(&cells, &ends, &alts);
    let ahead = crate::logic::lookahead::plans_of(&cells, &ends, &alts, &mut conjuncts, env_len);
    let takes = crate::logic::template::takes_of(&conjuncts);
    let binder_heads = crate::logic::template::binders_in_heads(&cells, &ends, &alts);
    let left_nested = crate::logic::template::left_nested_of(&cells, &alts);
    let tpl = Template {
        quantified: nslots > env_len,
        slot_names,
        binder_heads,
        ends,
        cells,
        root,
        nslots,
        env_len,
        alts,
        keys,
        conjuncts,
        left_nested,
        ahead,
        takes,
        origin: None,
        goal_spans: Box::default(),
    };
    Ok((tpl, env))
}

/// Names for a generalized clause's slots, as `:context`, traces and
/// proofs show its variables: a free variable (an environment slot) is
/// `_V<i>`; a quantified one is named after its binder, with a capital so
/// that it reads as a clause variable (`forall x \ p x :- q x` shows as
/// `forall X \ p X :- q X`, see `Machine::clause_text`), and a number
/// added when the name is taken (by another
/// slot, or by a variable of the running query, whose names the printers
/// give its variables).
fn slot_names(m: &Machine, env_len: u32, binders: &[u32]) -> Vec<String> {
    let mut names: Vec<String> = (0..env_len).map(|i| format!("_V{i}")).collect();
    for &id in binders {
        let written = m
            .binder_names
            .get(id as usize)
            .map_or("x", |&s| m.symbols.name(s));
        let mut chars = written.chars();
        let base: String = match chars.next() {
            Some(c) if c.is_alphabetic() => c.to_uppercase().chain(chars).collect(),
            _ => format!("X{written}"),
        };
        let mut name = base.clone();
        let mut k = 1;
        let taken = |n: &String| {
            names.contains(n)
                || m.query_names
                    .last()
                    .is_some_and(|q| q.iter().any(|(qn, _)| qn == n))
        };
        while taken(&name) {
            k += 1;
            name = format!("{base}{k}");
        }
        names.push(name);
    }
    names
}

/// Replace the clause-level quantifiers of the clause at `c` by their
/// bodies, each bound name by a fresh slot (from `*nslots` on); the
/// binders' ids go to `binders`, in slot order.
fn strip_clause_binders(
    cells: &mut [Cell],
    c: Cell,
    nslots: &mut u32,
    binders: &mut Vec<u32>,
) -> Cell {
    let Cell::Struct(a) = c else { return c };
    let Cell::Functor(f, 2) = cells[a.ix()] else {
        return c;
    };
    let (l, r) = (cells[a.ix() + 1], cells[a.ix() + 2]);
    if f == sym::FORALL {
        if let Cell::Bound(id) = l {
            let slot = *nslots;
            *nslots += 1;
            binders.push(id);
            replace_bound(cells, r, id, Cell::Ref(Addr(slot)));
            return strip_clause_binders(cells, r, nslots, binders);
        }
        return c;
    }
    let (cl, cr) = match f {
        f if f == sym::WITH => (true, true),
        f if f == sym::NECK || f == sym::RIMP => (true, false),
        f if f == sym::LOLLI || f == sym::IMP => (false, true),
        _ => (false, false),
    };
    if cl {
        let nl = strip_clause_binders(cells, l, nslots, binders);
        cells[a.ix() + 1] = nl;
    }
    if cr {
        let nr = strip_clause_binders(cells, r, nslots, binders);
        cells[a.ix() + 2] = nr;
    }
    c
}

fn replace_bound(cells: &mut [Cell], c: Cell, id: u32, value: Cell) {
    let mut stack = vec![c];
    while let Some(c) = stack.pop() {
        if let Cell::Struct(a) = c {
            if let Cell::Functor(_, n) = cells[a.ix()] {
                for i in 0..n as usize {
                    let k = a.ix() + 1 + i;
                    match cells[k] {
                        Cell::Bound(b) if b == id => cells[k] = value,
                        s @ Cell::Struct(_) => stack.push(s),
                        _ => {}
                    }
                }
            }
        }
    }
}

/// `generalize T G`: build `forall x1 \ ... forall xk \ T'` where the `xi`
/// replace the free variables of `T` in order of first occurrence.
pub fn generalize(m: &mut Machine, t: Cell) -> Cell {
    let mut vars: Vec<Cell> = Vec::new();
    let mut stack = vec![t];
    while let Some(c) = stack.pop() {
        match m.store.heap.deref(c) {
            v @ Cell::Ref(_) if !vars.contains(&v) => vars.push(v),
            Cell::Struct(a) => {
                if let Cell::Functor(_, n) = m.store.heap.get(a) {
                    for i in (0..n).rev() {
                        stack.push(m.store.heap.get(Addr(a.0 + 1 + i)));
                    }
                }
            }
            _ => {}
        }
    }
    let mut ids = Vec::new();
    for i in 0..vars.len() {
        let name = m.symbols.intern(&format!("X{}", i + 1));
        m.binder_names.push(name);
        ids.push(m.binder_names.len() as u32 - 1);
    }
    let mapping: Vec<(Cell, u32)> = vars.iter().copied().zip(ids.iter().copied()).collect();
    let mut body = super::copy::copy_term(&mut m.store.heap, t, &mut |c| {
        mapping
            .iter()
            .find(|(v, _)| *v == c)
            .map(|(_, id)| Cell::Bound(*id))
    });
    for &id in ids.iter().rev() {
        body = m
            .store
            .heap
            .new_struct(sym::FORALL, &[Cell::Bound(id), body]);
    }
    body
}
