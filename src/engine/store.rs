//! The store: heap, trail and unification with the occurs check.
//!
//! Unification is iterative (an explicit stack, never the Rust call stack),
//! binds the younger of two variables to the older, and refuses a binding
//! that would make a term contain itself (occurs check) or that would let a
//! variable capture an eigenvariable made after it (the `forall` scoping
//! rule of Lolli: "fresh constant that no outer logic variable may capture").
//!
//! A variable's age for that rule is its address, except that binding a
//! variable to a term lowers the age of every younger variable in the term
//! to its own ([`Heap::age`], trailed): otherwise `X = f Y, Y = x` would
//! give the old `X` a constant `x` made after it through the young `Y`.

use super::trail::{Trail, Undo};
use crate::term::{Addr, Cell, Heap, SymId};

/// How deep [`Store::unify_ground`] recurses before handing over to the
/// iterative [`Store::unify`].
const GROUND_DEPTH: u32 = 32;

/// Heap, trail and the boundary for conditional trailing.
#[derive(Clone, Debug, Default)]
pub struct Store {
    /// All terms built by the search.
    pub heap: Heap,
    /// Every undoable change.
    pub trail: Trail,
    /// Heap length at the newest choice point: variables below it are trailed when bound.
    pub hb: u32,
    /// Scratch stack for unification (kept to avoid allocating per call).
    pairs: Vec<(Cell, Cell)>,
    /// Scratch stack for the occurs check.
    scan: Vec<Cell>,
}

impl Store {
    /// An empty store.
    pub fn new() -> Self {
        Store::default()
    }

    /// Dereference a cell.
    #[inline]
    pub fn deref(&self, c: Cell) -> Cell {
        self.heap.deref(c)
    }

    /// Bind the unbound variable at `a` to `value`, trailing if needed.
    #[inline]
    pub fn bind(&mut self, a: Addr, value: Cell) {
        if !self.heap.no_scoped_names_after(a) {
            self.lower_ages(a, value);
        }
        self.bind_plain(a, value);
    }

    /// [`Store::bind`] without the age adjustment: for an `a` with no
    /// scoped name made after it ([`Heap::no_scoped_names_after`]).
    #[inline]
    pub fn bind_plain(&mut self, a: Addr, value: Cell) {
        if let Cell::Struct(_) = value {
            // An old cell may now reach new variables (see
            // `crate::term::settled`).
            self.heap.settled.raise(self.heap.len() as u32);
        }
        self.bind_ground(a, value);
    }

    /// [`Store::bind_plain`] for a `value` without variables (a subterm of
    /// a ground clause), which the settled prefix need not hear of.
    #[inline]
    fn bind_ground(&mut self, a: Addr, value: Cell) {
        self.heap.set(a, value);
        if a.0 < self.hb {
            self.trail.push(Undo::Bind(a));
        }
    }

    /// Before `a` is bound to `value`: give every unbound variable of
    /// `value` younger than `a` the age of `a` (trailed), so that none of
    /// them can later be bound to a name made after `a`, which `a` would
    /// then hold.  Only names that exist already matter: a name made later
    /// is younger than every variable that exists now.
    #[inline(never)]
    fn lower_ages(&mut self, a: Addr, value: Cell) {
        let age = self.heap.age(a);
        if age >= self.heap.newest_scoped_name() {
            return;
        }
        let mut scan = std::mem::take(&mut self.scan);
        scan.clear();
        scan.push(value);
        while let Some(c) = scan.pop() {
            match self.heap.deref(c) {
                Cell::Ref(w) if w != a && self.heap.age(w) > age => {
                    let old = self.heap.lowered.insert(w, age);
                    self.trail.push(Undo::Lower(w, old.unwrap_or(u32::MAX)));
                }
                Cell::Struct(s) => {
                    if let Cell::Functor(_, n) = self.heap.get(s) {
                        for i in 0..n {
                            scan.push(self.heap.arg(s, i));
                        }
                    }
                }
                _ => {}
            }
        }
        self.scan = scan;
    }

    /// Whether binding the variable at `v` to `t` keeps terms finite and
    /// respects eigenvariable scope.
    pub fn can_bind(&mut self, v: Addr, t: Cell) -> bool {
        // Scope is judged by the variable's age, occurs by its address.
        let age = self.heap.age(v);
        match t {
            Cell::Eigen(e) => return self.eigen_ok(age, e),
            Cell::Atom(s) => return self.heap.sym_birth(s) <= age,
            Cell::Struct(_) => {}
            _ => return true,
        }
        // Chains of one-argument terms (numerals) need no work stack.
        let mut t = t;
        loop {
            match self.heap.deref(t) {
                Cell::Struct(a) => match self.heap.get(a) {
                    Cell::Functor(f, 1) => {
                        if self.heap.sym_birth(f) > age {
                            return false;
                        }
                        t = self.heap.arg(a, 0);
                    }
                    Cell::Functor(f, n) => match self.constant_args(a, f, n, age) {
                        Some(ok) => return ok,
                        None => break,
                    },
                    _ => break,
                },
                Cell::Ref(a) => return a != v,
                Cell::Eigen(e) => return self.eigen_ok(age, e),
                Cell::Atom(s) => return self.heap.sym_birth(s) <= age,
                _ => return true,
            }
        }
        // The general walk, which also finds whether `t` is closed (see
        // `crate::term::closed`): subterms found closed before are passed in
        // one step, and `t` is recorded when it is.
        // With no scope to check, only where `v` may occur matters: not in
        // a term rooted in the settled prefix when `v` lies above it.
        let settled = if self.heap.settled.covers(v.0) && self.heap.no_scoped_names_after(v) {
            self.heap.settled.get()
        } else {
            0
        };
        let mut scan = std::mem::take(&mut self.scan);
        scan.clear();
        scan.push(t);
        let mut ok = true;
        let mut closed = true;
        while let Some(c) = scan.pop() {
            if let Cell::Ref(a) | Cell::Struct(a) = c {
                if a.0 < settled {
                    closed = false;
                    continue;
                }
            }
            match self.heap.deref(c) {
                Cell::Ref(a) => {
                    if a == v {
                        ok = false;
                        break;
                    }
                    closed = false;
                }
                Cell::Eigen(e) => {
                    if !self.eigen_ok(age, e) {
                        ok = false;
                        break;
                    }
                    closed = false;
                }
                Cell::Atom(s) => {
                    let birth = self.heap.sym_birth(s);
                    if birth > age {
                        ok = false;
                        break;
                    }
                    closed &= birth == 0;
                }
                Cell::Struct(a) => {
                    if self.heap.closed.contains(a.0) {
                        continue;
                    }
                    if let Cell::Functor(f, n) = self.heap.get(a) {
                        let birth = self.heap.sym_birth(f);
                        if birth > age {
                            ok = false;
                            break;
                        }
                        closed &= birth == 0;
                        for i in 0..n {
                            scan.push(self.heap.arg(a, i));
                        }
                    }
                }
                _ => {}
            }
        }
        self.scan = scan;
        if ok && closed {
            if let Cell::Struct(a) = self.heap.deref(t) {
                self.heap.closed.insert(a.0);
            }
        }
        ok
    }

    /// For the compound at `a` (functor `f` of arity `n`) whose arguments
    /// are all numbers, strings or names (`h 3 4`), whether a variable of
    /// age `age` may be bound to it, decided without the work stack of the
    /// general walk; `None` when an argument is of another kind.
    #[inline(always)]
    fn constant_args(&self, a: Addr, f: SymId, n: u32, age: u32) -> Option<bool> {
        let mut ok = self.heap.sym_birth(f) <= age;
        for i in 0..n {
            match self.heap.deref(self.heap.arg(a, i)) {
                Cell::Int(_) | Cell::Str(_) => {}
                Cell::Atom(s) => ok &= self.heap.sym_birth(s) <= age,
                _ => return None,
            }
        }
        Some(ok)
    }

    /// Whether a variable of age `age` may hold eigenvariable `e`.
    #[inline]
    fn eigen_ok(&self, age: u32, e: u32) -> bool {
        match self.heap.eigens.get(e as usize) {
            Some(info) => age >= info.birth.0,
            None => true,
        }
    }

    /// A pair of dereferenced cells that unifies or fails without a look
    /// inside either: equal cells, a variable and another variable or a
    /// constant, two different constants; `None` for any other pair.  A
    /// number or a string needs no check and lowers no age; a name only
    /// its scope checked.
    #[inline(always)]
    fn simple_pair(&mut self, a: Cell, b: Cell) -> Option<bool> {
        match (a, b) {
            _ if a == b => Some(true),
            (Cell::Ref(x), Cell::Ref(y)) => {
                if x < y {
                    self.bind(y, a);
                } else {
                    self.bind(x, b);
                }
                Some(true)
            }
            (Cell::Ref(x), t @ (Cell::Int(_) | Cell::Str(_)))
            | (t @ (Cell::Int(_) | Cell::Str(_)), Cell::Ref(x)) => {
                self.bind_ground(x, t);
                Some(true)
            }
            (Cell::Ref(x), t @ Cell::Atom(s)) | (t @ Cell::Atom(s), Cell::Ref(x)) => {
                if self.heap.sym_birth(s) > self.heap.age(x) {
                    return Some(false);
                }
                self.bind_ground(x, t);
                Some(true)
            }
            (
                Cell::Atom(_) | Cell::Int(_) | Cell::Str(_),
                Cell::Atom(_) | Cell::Int(_) | Cell::Str(_),
            ) => Some(false),
            _ => None,
        }
    }

    /// Unify two heap terms.  On failure, bindings already made stay on the
    /// trail (the caller backtracks).
    pub fn unify(&mut self, a: Cell, b: Cell) -> bool {
        // The commonest calls (`X is E`, `X = a`) are decided without the
        // work stack.
        let (a, b) = (self.heap.deref(a), self.heap.deref(b));
        if let Some(ok) = self.simple_pair(a, b) {
            return ok;
        }
        let mut pairs = std::mem::take(&mut self.pairs);
        pairs.clear();
        let mut ok = true;
        // The first pair is known not simple; each later one is checked.
        let mut first = Some((a, b));
        'pairs: loop {
            let (a, b) = match first.take() {
                Some(pair) => pair,
                None => {
                    let Some((a, b)) = pairs.pop() else {
                        break;
                    };
                    let (a, b) = (self.heap.deref(a), self.heap.deref(b));
                    match self.simple_pair(a, b) {
                        Some(true) => continue,
                        Some(false) => {
                            ok = false;
                            break;
                        }
                        None => (a, b),
                    }
                }
            };
            match (a, b) {
                (Cell::Ref(x), t) | (t, Cell::Ref(x)) => {
                    if !self.can_bind(x, t) {
                        ok = false;
                        break;
                    }
                    self.bind(x, t);
                }
                (Cell::Struct(x), Cell::Struct(y)) => {
                    let fx = self.heap.get(x);
                    if fx != self.heap.get(y) {
                        // `F a b` with F bound denotes the flattened term.
                        let (a2, b2) = (self.flatten_apply(a), self.flatten_apply(b));
                        if a2 != a || b2 != b {
                            pairs.push((a2, b2));
                            continue;
                        }
                        if self.split_apply(a, b, &mut pairs) {
                            continue;
                        }
                        ok = false;
                        break;
                    }
                    if let Cell::Functor(f, n) = fx {
                        if n == 2 && f.is_binder() {
                            if let Some(bodies) = self.binder_bodies(x, y) {
                                pairs.push(bodies);
                                continue;
                            }
                        }
                        // The leading simple pairs of arguments (`h 3 2 =
                        // h R K`) in place, the rest on the stack: the same
                        // order as all of them on the stack.
                        let mut i = 0;
                        while i < n {
                            let p = self.heap.deref(self.heap.arg(x, i));
                            let q = self.heap.deref(self.heap.arg(y, i));
                            match self.simple_pair(p, q) {
                                Some(true) => i += 1,
                                Some(false) => {
                                    ok = false;
                                    break 'pairs;
                                }
                                None => break,
                            }
                        }
                        for j in (i..n).rev() {
                            pairs.push((self.heap.arg(x, j), self.heap.arg(y, j)));
                        }
                    }
                }
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        self.pairs = pairs;
        ok
    }

    /// Two binder terms `Q x \\ F` and `Q y \\ G` (functor cells at `x` and
    /// `y`) whose bound names are different binders: the bodies to unify
    /// instead ([`Store::alpha_bodies`]).  `None` when both bind the same
    /// name (copies of one binder of the source), whose bodies unify as
    /// they are.
    fn binder_bodies(&mut self, x: Addr, y: Addr) -> Option<(Cell, Cell)> {
        let (Cell::Bound(i), Cell::Bound(j)) = (
            self.heap.deref(self.heap.arg(x, 0)),
            self.heap.deref(self.heap.arg(y, 0)),
        ) else {
            return None;
        };
        if i == j {
            return None;
        }
        let (f, g) = (self.heap.arg(x, 1), self.heap.arg(y, 1));
        Some(self.alpha_bodies(f, i, g, j))
    }

    /// The bodies `f` of a binder of name `i` and `g` of one of name `j`,
    /// with one new constant for both names (copies), so that binder terms
    /// equal up to the names they bind unify (`(forall x \\ p x) =
    /// (forall y \\ p y)`).  The constant is made as `forall` makes one,
    /// after every variable of either body, so no variable can take it: a
    /// bound name never escapes its binder (`(forall x \\ p x) = (forall y
    /// \\ Z)` fails).
    pub fn alpha_bodies(&mut self, f: Cell, i: u32, g: Cell, j: u32) -> (Cell, Cell) {
        let name = self.heap.new_eigen(crate::term::sym::FORALL);
        (self.substitute(f, i, name), self.substitute(g, j, name))
    }

    /// Copy heap term `c`, replacing `Bound(id)` by `value` (binder
    /// instantiation); the variables of `c` are shared, not copied.
    pub fn substitute(&mut self, c: Cell, id: u32, value: Cell) -> Cell {
        crate::engine::copy::copy_term(&mut self.heap, c, &mut |cell| match cell {
            Cell::Bound(b) if b == id => Some(value),
            _ => None,
        })
    }

    /// Unify two compound terms with different functors, at least one of
    /// them a variable application whose head is not bound to a name or
    /// compound (both dereferenced; an application whose head is bound was
    /// flattened before).  Application is curried: `F x1 .. xn` is the term
    /// whose last `n` arguments are `x1 .. xn` and whose head, applied to
    /// what comes before them, is `F`.  So against `g y1 .. ym` (m ≥ n) this
    /// pushes `F = g y1 .. y(m-n)` (the name `g` when m = n) and `xi =
    /// y(m-n+i)`; against another application `G z1 .. zk` (k ≥ n), `F = G
    /// z1 .. z(k-n)`.  False when neither side is an application, and
    /// when one is a binder term (`forall x \ p x` against `Q V B`): taken
    /// apart, its bound name would be a term of its own, free.
    fn split_apply(&mut self, a: Cell, b: Cell, pairs: &mut Vec<(Cell, Cell)>) -> bool {
        let (Some((fa, xa, app_a)), Some((fb, xb, app_b))) = (self.curried(a), self.curried(b))
        else {
            return false;
        };
        if !app_a && !app_b {
            return false;
        }
        let binder = |h: Cell, xs: &[Cell]| matches!((h, xs), (Cell::Atom(s), [Cell::Bound(_), _]) if s.is_binder());
        if binder(fa, &xa) || binder(fb, &xb) {
            return false;
        }
        // The side with fewer arguments is split off the other.
        let ((f, xs), (g, ys)) = if xa.len() <= xb.len() {
            ((fa, xa), (fb, xb))
        } else {
            ((fb, xb), (fa, xa))
        };
        let (n, m) = (xs.len(), ys.len());
        let prefix = match g {
            Cell::Atom(name) => self.heap.new_struct(name, &ys[..m - n]),
            head if m == n => head,
            head => {
                let mut parts = vec![head];
                parts.extend_from_slice(&ys[..m - n]);
                self.heap.new_struct(crate::term::sym::APPLY, &parts)
            }
        };
        pairs.push((f, prefix));
        pairs.extend(xs.into_iter().zip(ys[m - n..].iter().copied()));
        true
    }

    /// A compound term as a head and its curried arguments, and whether it
    /// is a variable application: `g y1 .. ym` gives the name `g`;
    /// `$apply(H, x1, .., xn)` gives `H` (an application nested in the head
    /// position, as after `G = F a`, contributes its own arguments first).
    fn curried(&self, c: Cell) -> Option<(Cell, Vec<Cell>, bool)> {
        if let Some((head, args)) = self.heap.open_apply(c) {
            return Some((head, args, true));
        }
        let (g, m, at) = self.heap.functor(c)?;
        let args = (0..m)
            .map(|i| self.heap.get(Addr(at.0 + i)))
            .collect::<Vec<_>>();
        if g == crate::term::sym::APPLY {
            let (&head, rest) = args.split_first()?;
            return Some((self.heap.deref(head), rest.to_vec(), true));
        }
        Some((Cell::Atom(g), args, false))
    }

    /// Unify heap term `g` with `h`, a term known to be ground (the head of
    /// a clause without variables).  The same as [`Store::unify`], faster: a
    /// variable of `g` met by a subterm of `h` needs no occurs check, and no
    /// scope check when no eigenvariable or fresh symbol is younger than it.
    /// Any pair of another shape is handed to `unify`.
    ///
    /// The usual call is an atom against a fact of its predicate, so the
    /// atoms' arguments are matched here in one loop, the common pairs (a
    /// variable, two constants, a shared subterm) without a call; only
    /// compound arguments go through the recursive matcher.
    pub fn unify_ground(&mut self, g: Cell, h: Cell) -> bool {
        let (Cell::Struct(x), Cell::Struct(y)) = (self.heap.deref(g), self.heap.deref(h)) else {
            return self.unify_ground_at(g, h, 0);
        };
        let fx = self.heap.get(x);
        let Cell::Functor(_, n) = fx else {
            return self.unify_ground_at(g, h, 0);
        };
        if x == y {
            return true;
        }
        if fx != self.heap.get(y) {
            return self.unify_ground_at(g, h, 0);
        }
        // A variable at or above this address has no scoped name younger
        // than it (see `Heap::no_scoped_names_after`).  It stays so while
        // matching: variables are bound to subterms of the ground `h` only,
        // which lowers no age.
        let free = self.heap.scoped_names_top();
        (0..n).all(|i| self.ground_arg(x, y, i, free, 1))
    }

    /// Match argument `i` of the compound at `x` with that of the ground
    /// compound at `y` (same functor), at nesting `depth`: the common
    /// pairs (a variable, two constants, a shared subterm) in place, any
    /// other through [`Store::unify_ground_at`].  `free` is
    /// [`Heap::scoped_names_top`].
    #[inline(always)]
    fn ground_arg(&mut self, x: Addr, y: Addr, i: u32, free: u32, depth: u32) -> bool {
        let a = self.heap.deref(self.heap.arg(x, i));
        let b = self.heap.deref(self.heap.arg(y, i));
        match (a, b) {
            (Cell::Ref(v), _) => {
                if v.0 >= free || self.can_bind(v, b) {
                    self.bind_ground(v, b);
                    true
                } else {
                    false
                }
            }
            (Cell::Atom(p), Cell::Atom(q)) => p == q,
            (Cell::Int(p), Cell::Int(q)) => p == q,
            (Cell::Str(p), Cell::Str(q)) => p == q,
            (Cell::Struct(p), Cell::Struct(q)) if p == q => true,
            _ => self.unify_ground_at(a, b, depth),
        }
    }

    /// [`Store::unify_ground`] at nesting `depth`: recursion over all but the
    /// last argument (the last one loops, so a numeral or a list's spine
    /// costs no depth); deeper than [`GROUND_DEPTH`], `unify` takes over.
    fn unify_ground_at(&mut self, mut g: Cell, mut h: Cell, depth: u32) -> bool {
        loop {
            g = self.heap.deref(g);
            h = self.heap.deref(h);
            match (g, h) {
                (Cell::Ref(x), _) => {
                    if self.heap.no_scoped_names_after(x) || self.can_bind(x, h) {
                        self.bind_ground(x, h);
                        return true;
                    }
                    return false;
                }
                (Cell::Struct(x), Cell::Struct(y)) => {
                    if x == y {
                        return true;
                    }
                    let fx = self.heap.get(x);
                    match fx {
                        Cell::Functor(_, n)
                            if n > 0 && depth < GROUND_DEPTH && fx == self.heap.get(y) =>
                        {
                            let free = self.heap.scoped_names_top();
                            if !(0..n - 1).all(|i| self.ground_arg(x, y, i, free, depth + 1)) {
                                return false;
                            }
                            g = self.heap.arg(x, n - 1);
                            h = self.heap.arg(y, n - 1);
                        }
                        _ => return self.unify(g, h),
                    }
                }
                (Cell::Atom(a), Cell::Atom(b)) => return a == b,
                (Cell::Int(a), Cell::Int(b)) => return a == b,
                (Cell::Str(a), Cell::Str(b)) => return a == b,
                _ => return self.unify(g, h),
            }
        }
    }

    /// If `c` is a variable application `$apply(F, a1, .., an)` whose head
    /// is bound to a name or compound term (or to another such application,
    /// as `G a` with `G = F b` and `F = p`), the flattened term it denotes
    /// (built on the heap); otherwise `c` itself.
    pub fn flatten_apply(&mut self, c: Cell) -> Cell {
        match self.heap.apply_parts(c) {
            Some((name, args)) => self.heap.new_struct(name, &args),
            None => c,
        }
    }

    /// Record, trailed, that the body of the `forall` that made
    /// eigenvariable `i` has been proved with choice points newer than the
    /// `choices` made before it left (see [`Heap::end_eigen`]).
    pub fn end_eigen(&mut self, i: usize, choices: u32) {
        self.heap.end_eigen(i, choices);
        self.trail.push(Undo::EigenEnded(i as u32));
    }

    /// Undo the trail back to `mark`.  Bindings, ages and ended `forall`
    /// bodies are handled here; the caller passes the other kinds of change
    /// to `other`.
    pub fn undo_to(&mut self, mark: usize, mut other: impl FnMut(Undo)) {
        // An unbound variable may be reachable again from a term found
        // closed.
        self.heap.closed.forget();
        while self.trail.entries.len() > mark {
            let Some(u) = self.trail.entries.pop() else {
                break;
            };
            match u {
                Undo::Bind(a) => self.heap.set(a, Cell::Ref(a)),
                Undo::Lower(v, u32::MAX) => {
                    self.heap.lowered.remove(&v);
                }
                Undo::Lower(v, age) => {
                    self.heap.lowered.insert(v, age);
                }
                Undo::EigenEnded(i) => self.heap.reopen_eigen(i as usize),
                other_change => other(other_change),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::{sym, Symbols};

    #[test]
    fn occurs_check_refuses_cyclic_terms() {
        let mut s = Store::new();
        let mut syms = Symbols::new();
        let f = syms.intern("f");
        let x = s.heap.new_var();
        let fx = s.heap.new_struct(f, &[x]);
        assert!(!s.unify(x, fx));
    }

    #[test]
    fn unify_binds_and_undo_resets() {
        let mut s = Store::new();
        let x = s.heap.new_var();
        s.hb = s.heap.len() as u32;
        let mark = s.trail.mark();
        assert!(s.unify(x, Cell::Atom(sym::NIL)));
        assert_eq!(s.deref(x), Cell::Atom(sym::NIL));
        s.undo_to(mark, |_| {});
        assert_eq!(s.deref(x), x);
    }

    #[test]
    fn compounds_of_constants_match_argument_by_argument() {
        let mut s = Store::new();
        let mut syms = Symbols::new();
        let (h, g) = (syms.intern("h"), syms.intern("g"));
        let (r, k) = (s.heap.new_var(), s.heap.new_var());
        let ground = s.heap.new_struct(h, &[Cell::Int(3), Cell::Int(2)]);
        let open = s.heap.new_struct(h, &[r, k]);
        s.hb = s.heap.len() as u32;
        let mark = s.trail.mark();
        assert!(s.unify(ground, open));
        assert_eq!((s.deref(r), s.deref(k)), (Cell::Int(3), Cell::Int(2)));
        s.undo_to(mark, |_| {});
        assert_eq!((s.deref(r), s.deref(k)), (r, k));
        // A constant pair that differs fails, after the ones before it.
        let other = s.heap.new_struct(h, &[r, Cell::Atom(g)]);
        assert!(!s.unify(ground, other));
        s.undo_to(mark, |_| {});
        // A simple pair after a compound one keeps its order.
        let inner = s.heap.new_struct(g, &[r]);
        let left = s.heap.new_struct(h, &[inner, r]);
        let g2 = s.heap.new_struct(g, &[Cell::Int(2)]);
        let right = s.heap.new_struct(h, &[g2, Cell::Int(3)]);
        assert!(!s.unify(left, right));
        s.undo_to(mark, |_| {});
        let right = s.heap.new_struct(h, &[g2, Cell::Int(2)]);
        assert!(s.unify(left, right));
        assert_eq!(s.deref(r), Cell::Int(2));
    }

    #[test]
    fn a_compound_of_constants_holds_no_name_younger_than_its_variable() {
        let mut s = Store::new();
        let mut syms = Symbols::new();
        let (h, local) = (syms.intern("h"), syms.intern("local"));
        let old = s.heap.new_var();
        s.heap.set_sym_birth(local);
        let young = s.heap.new_var();
        let with_name = s.heap.new_struct(h, &[Cell::Int(1), Cell::Atom(local)]);
        let plain = s.heap.new_struct(h, &[Cell::Int(1), Cell::Int(2)]);
        assert!(!s.unify(old, with_name));
        assert!(!s.unify(old, Cell::Atom(local)));
        assert!(s.unify(young, with_name));
        assert!(s.unify(old, plain));
    }

    #[test]
    fn eigenvariable_cannot_escape_to_older_variable() {
        let mut s = Store::new();
        let x = s.heap.new_var();
        let e = s.heap.new_eigen(sym::NIL);
        assert!(!s.unify(x, e));
        let y = s.heap.new_var();
        assert!(s.unify(y, e));
    }
}
