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
    let root = strip_clause_binders(&mut cells, root, &mut nslots);
    let mut alts = Vec::new();
    clause_alts(&cells, &|c| c, root, &mut alts)?;
    let mut scratch = Vec::new();
    let keys = alts
        .iter()
        .map(|a| head_keys(&cells, &[], |c| c, a.head, &mut scratch))
        .collect();
    let conjuncts = crate::logic::template::conjuncts_of(&cells, &alts);
    let tpl = Template {
        slot_names: (0..nslots).map(|i| format!("_V{i}")).collect(),
        cells,
        root,
        nslots,
        env_len,
        alts,
        keys,
        conjuncts,
        origin: None,
    };
    Ok((tpl, env))
}

fn strip_clause_binders(cells: &mut [Cell], c: Cell, nslots: &mut u32) -> Cell {
    let Cell::Struct(a) = c else { return c };
    let Cell::Functor(f, 2) = cells[a.ix()] else {
        return c;
    };
    let (l, r) = (cells[a.ix() + 1], cells[a.ix() + 2]);
    if f == sym::FORALL {
        if let Cell::Bound(id) = l {
            let slot = *nslots;
            *nslots += 1;
            replace_bound(cells, r, id, Cell::Ref(Addr(slot)));
            return strip_clause_binders(cells, r, nslots);
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
        let nl = strip_clause_binders(cells, l, nslots);
        cells[a.ix() + 1] = nl;
    }
    if cr {
        let nr = strip_clause_binders(cells, r, nslots);
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
