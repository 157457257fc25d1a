//! Copying heap terms with substitution, iteratively.
//!
//! Used to instantiate binders (`forall x \ G`: replace `Bound(id)` by a
//! fresh constant) and by built-ins that rebuild terms.  Unbound variables
//! are shared, not copied; a subterm that needs no change is still rebuilt
//! (terms are small where this runs).  A variable application whose head
//! the substitution makes a name is the atom it denotes: `$apply(x, a)`
//! with `x` replaced by the symbol `p` is copied as `p a`.

use crate::term::{sym, Addr, Cell, Heap};

/// Copy `root`, replacing every cell for which `map` returns `Some`.
pub fn copy_term(heap: &mut Heap, root: Cell, map: &mut dyn FnMut(Cell) -> Option<Cell>) -> Cell {
    // Each task: copy the source cell into destination slot `dst` (a heap
    // index), or into `result` when `dst` is None.
    let mut result = root;
    let mut tasks: Vec<(Cell, Option<usize>)> = vec![(root, None)];
    while let Some((src, dst)) = tasks.pop() {
        let c = heap.deref(src);
        let out = if let Some(r) = map(c) {
            r
        } else {
            match c {
                Cell::Struct(a) => {
                    let Cell::Functor(mut f, mut n) = heap.get(a) else {
                        continue;
                    };
                    let mut a = a;
                    if f == sym::APPLY && n > 1 {
                        if let Some(Cell::Atom(name)) = map(heap.deref(heap.arg(a, 0))) {
                            (f, n, a) = (name, n - 1, Addr(a.0 + 1));
                        }
                    }
                    let base = heap.len();
                    heap.cells.push(Cell::Functor(f, n));
                    for i in 0..n {
                        let arg = heap.get(Addr(a.0 + 1 + i));
                        heap.cells.push(arg);
                        tasks.push((arg, Some(base + 1 + i as usize)));
                    }
                    Cell::Struct(Addr(base as u32))
                }
                other => other,
            }
        };
        match dst {
            Some(d) => heap.cells[d] = out,
            None => result = out,
        }
    }
    result
}
