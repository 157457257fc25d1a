//! Micro-benchmarks of the engine's hot paths (issue 6): unification,
//! resource lookup through the context's index, clause selection by first
//! argument and by whole atom, and undoing the trail.  Each one drives the
//! engine's own data structures directly (`Store`, `Context`, `keys_of`),
//! with terms shaped like those of the triangle puzzle, so a change in one
//! path shows up here before it is diluted in a whole workload.
//!
//! Run with `cargo bench --bench engine`; the measurement times are kept
//! short so the whole set takes well under a minute.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

use lolli::engine::context::{Context, Source};
use lolli::engine::store::Store;
use lolli::logic::keys::{keys_of, Keys};
use lolli::term::{Cell, SymId, Symbols};

/// The names the benchmarks build terms from.
struct Names {
    b: SymId,
    s: SymId,
    z: SymId,
    peg: SymId,
    empty: SymId,
    item: SymId,
}

fn names() -> (Symbols, Names) {
    let mut syms = Symbols::new();
    let names = Names {
        b: syms.intern("b"),
        s: syms.intern("s"),
        z: syms.intern("z"),
        peg: syms.intern("peg"),
        empty: syms.intern("empty"),
        item: syms.intern("item"),
    };
    (syms, names)
}

/// `s (s ... z)` with `n` successors, built on the store's heap.
fn nat(store: &mut Store, n: &Names, k: u32) -> Cell {
    let mut t = Cell::Atom(n.z);
    for _ in 0..k {
        t = store.heap.new_struct(n.s, &[t]);
    }
    t
}

/// The index keys of the atom `atom` on the store's heap.
fn keys(store: &Store, atom: Cell, scratch: &mut Vec<Cell>) -> ((SymId, u32), Keys) {
    keys_of(
        &store.heap.cells,
        &store.heap.digests,
        |c| store.heap.deref(c),
        atom,
        scratch,
    )
}

/// Add `atom` to the context as a linear resource or an unbounded clause,
/// indexed under its keys.
fn assume(store: &mut Store, ctx: &mut Context, atom: Cell, linear: bool) {
    let mut scratch = Vec::new();
    let (pred, k) = keys(store, atom, &mut scratch);
    let source = Source::Heap {
        clause: atom,
        alts: 0,
        n: 1,
    };
    let e = ctx.push_entry(linear, source, 0);
    ctx.index(&mut store.trail, e, 0, pred, &k);
}

/// Find the newest usable entry whose head unifies with `call`, as the
/// search does: the call's keys, the cursor over the candidates, then
/// unification with each candidate (undone at once) until one matches.
/// `heads[e]` is entry `e`'s head.
fn find(
    store: &mut Store,
    ctx: &mut Context,
    heads: &[Cell],
    call: Cell,
    scratch: &mut Vec<Cell>,
) -> Option<u32> {
    let (pred, k) = keys(store, call, scratch);
    let mut cur = ctx.cursor(pred, &k);
    while let Some(item) = ctx.next_usable(&mut cur) {
        let mark = store.trail.mark();
        let ok = store.unify(heads[item.entry as usize], call);
        store.undo_to(mark, |_| {});
        if ok {
            return Some(item.entry);
        }
    }
    None
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(20)
}

/// Unify a call pattern of the puzzle with a resource, then undo the
/// bindings; and compare two equal ground terms cell by cell.
fn unification(c: &mut Criterion) {
    let (_syms, n) = names();
    let mut group = c.benchmark_group("unify");

    // `b (s (s X)) (s Y) peg` against `b (s (s (s z))) (s (s z)) peg`.
    let mut store = Store::new();
    let (x, y) = (store.heap.new_var(), store.heap.new_var());
    let ssx = {
        let sx = store.heap.new_struct(n.s, &[x]);
        store.heap.new_struct(n.s, &[sx])
    };
    let sy = store.heap.new_struct(n.s, &[y]);
    let pattern = store.heap.new_struct(n.b, &[ssx, sy, Cell::Atom(n.peg)]);
    let (three, two) = (nat(&mut store, &n, 3), nat(&mut store, &n, 2));
    let resource = store.heap.new_struct(n.b, &[three, two, Cell::Atom(n.peg)]);
    store.hb = store.heap.len() as u32;
    group.bench_function("pattern against resource, then undo", |bench| {
        bench.iter(|| {
            let mark = store.trail.mark();
            let ok = store.unify(black_box(pattern), black_box(resource));
            store.undo_to(mark, |_| {});
            ok
        })
    });

    // The same pattern against a resource it does not match (fails late).
    let other = store
        .heap
        .new_struct(n.b, &[three, two, Cell::Atom(n.empty)]);
    group.bench_function("pattern against a mismatch, then undo", |bench| {
        bench.iter(|| {
            let mark = store.trail.mark();
            let ok = store.unify(black_box(pattern), black_box(other));
            store.undo_to(mark, |_| {});
            ok
        })
    });

    // Two separately built copies of a ground term with 64 successors.
    for depth in [4u32, 64] {
        let a = nat(&mut store, &n, depth);
        let b = nat(&mut store, &n, depth);
        group.bench_with_input(
            BenchmarkId::new("equal ground numerals", depth),
            &(a, b),
            |bench, &(a, b)| bench.iter(|| store.unify(black_box(a), black_box(b))),
        );
    }
    group.finish();
}

/// Find a resource `b X Y D` by its first two arguments in a context of
/// many such resources (a triangle board with `side` rows).
fn resource_lookup(c: &mut Criterion) {
    let (_syms, n) = names();
    let mut group = c.benchmark_group("resource lookup");
    for side in [5u32, 40] {
        let mut store = Store::new();
        let mut ctx = Context::new();
        let mut heads = Vec::new();
        let rows: Vec<Cell> = (0..side).map(|k| nat(&mut store, &n, k)).collect();
        for x in 0..side {
            for y in 0..=x {
                let d = if (x, y) == (2, 1) { n.empty } else { n.peg };
                let atom = store
                    .heap
                    .new_struct(n.b, &[rows[x as usize], rows[y as usize], Cell::Atom(d)]);
                assume(&mut store, &mut ctx, atom, true);
                heads.push(atom);
            }
        }
        let d = store.heap.new_var();
        let call = store.heap.new_struct(n.b, &[rows[3], rows[2], d]);
        store.hb = store.heap.len() as u32;
        let mut scratch = Vec::new();
        // Resources are entries 0, 1, ... row by row: (3,2) is entry 8.
        assert_eq!(
            find(&mut store, &mut ctx, &heads, call, &mut scratch),
            Some(8)
        );
        group.bench_with_input(
            BenchmarkId::new("b X Y D, X and Y bound", heads.len()),
            &call,
            |bench, &call| {
                bench.iter(|| find(&mut store, &mut ctx, &heads, black_box(call), &mut scratch))
            },
        );
    }
    group.finish();
}

/// Choose among many unbounded clauses `item K V`: by the first argument
/// when V is unbound in the heads, by the whole atom when the heads are
/// ground and share their first arguments.
fn clause_selection(c: &mut Criterion) {
    let (_syms, n) = names();
    let mut group = c.benchmark_group("clause selection");
    for count in [10i64, 10_000] {
        let wanted = Some(count as u32 / 2);
        let mut scratch = Vec::new();

        // Heads `item K V` with V a variable: the first argument decides.
        let mut store = Store::new();
        let mut ctx = Context::new();
        let mut heads = Vec::new();
        for k in 0..count {
            let v = store.heap.new_var();
            let head = store.heap.new_struct(n.item, &[Cell::Int(k), v]);
            assume(&mut store, &mut ctx, head, false);
            heads.push(head);
        }
        let v = store.heap.new_var();
        let call = store.heap.new_struct(n.item, &[Cell::Int(count / 2), v]);
        store.hb = store.heap.len() as u32;
        assert_eq!(
            find(&mut store, &mut ctx, &heads, call, &mut scratch),
            wanted
        );
        group.bench_with_input(
            BenchmarkId::new("first argument", count),
            &call,
            |bench, &call| {
                bench.iter(|| find(&mut store, &mut ctx, &heads, black_box(call), &mut scratch))
            },
        );

        // Ground heads `item (K mod 3) (2K)`: only the whole atom tells
        // them apart.
        let mut store = Store::new();
        let mut ctx = Context::new();
        let mut heads = Vec::new();
        for k in 0..count {
            let head = store
                .heap
                .new_struct(n.item, &[Cell::Int(k % 3), Cell::Int(2 * k)]);
            assume(&mut store, &mut ctx, head, false);
            heads.push(head);
        }
        let k = count / 2;
        let call = store
            .heap
            .new_struct(n.item, &[Cell::Int(k % 3), Cell::Int(2 * k)]);
        store.hb = store.heap.len() as u32;
        assert_eq!(
            find(&mut store, &mut ctx, &heads, call, &mut scratch),
            wanted
        );
        group.bench_with_input(
            BenchmarkId::new("whole atom", count),
            &call,
            |bench, &call| {
                bench.iter(|| find(&mut store, &mut ctx, &heads, black_box(call), &mut scratch))
            },
        );
    }
    group.finish();
}

/// Undo a batch of changes: variable bindings, and resources consumed
/// (state changes of context entries).
fn trail_undo(c: &mut Criterion) {
    let (_syms, n) = names();
    let mut group = c.benchmark_group("trail undo");
    const N: usize = 1000;

    let mut store = Store::new();
    let vars: Vec<Cell> = (0..N).map(|_| store.heap.new_var()).collect();
    store.hb = store.heap.len() as u32;
    group.bench_function("bind 1000 variables, undo", |bench| {
        bench.iter(|| {
            let mark = store.trail.mark();
            for v in &vars {
                if let Cell::Ref(a) = *v {
                    store.bind(a, Cell::Atom(n.peg));
                }
            }
            store.undo_to(black_box(mark), |_| {});
        })
    });

    let mut store = Store::new();
    let mut ctx = Context::new();
    for k in 0..N as i64 {
        let atom = store.heap.new_struct(n.item, &[Cell::Int(k), Cell::Int(k)]);
        assume(&mut store, &mut ctx, atom, true);
    }
    group.bench_function("consume 1000 resources, undo", |bench| {
        bench.iter(|| {
            let mark = store.trail.mark();
            for e in 0..N as u32 {
                ctx.set_state(&mut store.trail, e, lolli::engine::context::GONE);
            }
            store.undo_to(black_box(mark), |u| ctx.undo(u));
        })
    });
    group.finish();
}

criterion_group! {
    name = engine;
    config = config();
    targets = unification, resource_lookup, clause_selection, trail_undo
}
criterion_main!(engine);
