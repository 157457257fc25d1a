//! Read-only views of a machine for the top level: the context a query would
//! run with (`:context`), session statistics (`:stats`), and the predicate
//! names that Tab completes.
//!
//! The context is listed by predicate, each predicate's clauses and
//! resources in the order in which the search tries them (the newest
//! assumption or loaded file first, and the clauses of one file or one
//! assumption in the order written), read from the index the search uses.  A clause assumed
//! during a search (by `-o` or `=>`) is printed from the heap.  A clause
//! compiled from a file is a template with an environment: it is printed as
//! the search uses it, with the module's parameters as they were bound at
//! its loading and its `LOCAL` names as the constants of that loading
//! (`key_1`); its own variables keep their source names.  (Printing copies
//! the clause to the heap and removes the copy: the machine is left as it
//! was.)

use crate::engine::context::Source;
use crate::engine::Machine;
use crate::logic::keys::Keys;
use crate::term::SymId;

use super::backend::Stats;

/// One clause of the context, printed.
fn clause_text(m: &mut Machine, source: Source) -> String {
    match source {
        Source::Template { tpl, env } => m
            .template_text(tpl, env, |p, c| p.term(c))
            .unwrap_or_else(|| format!("<clause {tpl}>")),
        Source::Heap { clause, .. } => m.printer().term(clause),
    }
}

/// The predicates that have entries in the context, in the order of their
/// newest entry.
fn predicates(m: &Machine) -> Vec<(SymId, u32)> {
    let mut preds: Vec<(SymId, u32)> = Vec::new();
    for e in m.ctx.entries.iter().rev() {
        let of_entry: Vec<(SymId, u32)> = match e.source {
            Source::Template { tpl, .. } => m
                .templates
                .get(tpl as usize)
                .map(|t| t.keys.iter().map(|(pred, _)| *pred).collect())
                .unwrap_or_default(),
            Source::Heap { alts, n, .. } => m.ctx.heap_alts[alts as usize..(alts + n) as usize]
                .iter()
                .map(|a| a.pred)
                .collect(),
        };
        for pred in of_entry {
            if !preds.contains(&pred) {
                preds.push(pred);
            }
        }
    }
    preds
}

/// The `:context` listing: for each predicate, its entries in the order a
/// call with nothing to narrow its candidates meets them.  They are read
/// from the index with the cursor the search uses
/// ([`crate::engine::context::Context::cursor`] and `next`), so the
/// listing shows the search's order, linear resources and unbounded
/// clauses interleaved, and only what the search can meet.
pub fn context(m: &mut Machine) -> String {
    let (mut clauses, mut linear, mut available) = (0, 0, 0);
    let mut body = String::new();
    let mut counted = std::collections::HashSet::new();
    for pred in predicates(m) {
        let mut items = Vec::new();
        let mut cur = m.ctx.cursor(pred, &Keys::default());
        while let Some(item) = m.ctx.next(&mut cur) {
            // One line for a clause, however many of its alternatives
            // are about this predicate.
            if items.last() != Some(&item.entry) {
                items.push(item.entry);
            }
        }
        let mut lines = String::new();
        for id in items {
            let e = m.ctx.entries[id as usize];
            let mark = match (e.linear, m.ctx.usable(id)) {
                (true, true) => '*',
                (true, false) => '-',
                (false, true) => ' ',
                // An unbounded clause whose scope is over.
                (false, false) => continue,
            };
            if counted.insert(id) {
                if e.linear {
                    linear += 1;
                    available += (mark == '*') as usize;
                } else {
                    clauses += 1;
                }
            }
            lines.push_str(&format!("  {mark} {}.\n", clause_text(m, e.source)));
        }
        if !lines.is_empty() {
            let name = crate::pretty::quote_name(m.symbols.name(pred.0));
            body.push_str(&format!("{name}/{}:\n{lines}", pred.1));
        }
    }
    if body.is_empty() {
        return "the context is empty\n".to_string();
    }
    format!(
        "{clauses} unbounded clause{}, {linear} linear resource{} ({available} still \
         available, marked *; {} used up, marked -)\nby predicate, each in the order the \
         search tries them (the newest assumption or file first; within one, in the order \
         written):\n{body}",
        if clauses == 1 { "" } else { "s" },
        if linear == 1 { "" } else { "s" },
        linear - available,
    )
}

/// The `:stats` report, with what the other workers of parallel searches
/// did (`others`).
pub fn stats(m: &Machine, s: &Stats, depth: usize, others: Others<'_>) -> String {
    let ctx = &m.ctx;
    let linear = ctx.entries.iter().filter(|e| e.linear).count();
    let mut gc = m.gc_stats();
    gc.add(others.earlier_gc);
    if let Some(f) = others.last {
        gc.add(f.gc);
    }
    let (made, recalled, on) = record_with(m, others.last);
    format!(
        "queries run:       {}\n\
         inferences:        {}\n\
         search time:       {:.3} s\n\
         nesting depth:     {depth}\n\
         context entries:   {} ({} unbounded, {linear} linear)\n\
         compiled clauses:  {}\n\
         modules loaded:    {}\n\
         heap cells:        {}\n\
         trail entries:     {}\n\
         {}{}{}",
        s.queries,
        s.inferences,
        s.search_time.as_secs_f64(),
        ctx.entries.len(),
        ctx.entries.len() - linear,
        m.templates.len(),
        m.modules.len(),
        m.store.heap.len(),
        m.store.trail.entries.len(),
        gc_text(gc),
        memo_line(m),
        record_text(made, recalled, on).unwrap_or_default(),
    )
}

/// What the other workers of parallel searches did, for `:stats`.
#[derive(Copy, Clone, Debug, Default)]
pub struct Others<'a> {
    /// Their collections in the session's goals before the last.
    pub earlier_gc: crate::engine::machine::GcStats,
    /// Their figures in the last query, when it ran in parallel.
    pub last: Option<&'a crate::engine::parallel::Figures>,
}

/// The look-ahead record's figures of the last query: the machine's,
/// with `others'` (the other workers' of a parallel search) added; off
/// when any worker's record turned itself off.
fn record_with(m: &Machine, others: Option<&crate::engine::parallel::Figures>) -> (u64, u64, bool) {
    let (mut made, mut recalled, mut on) = m.lookahead_record();
    if let Some(f) = others {
        on &= !f.record_off;
        made += f.record.0;
        recalled += f.record.1;
    }
    (made, recalled, on)
}

/// What `--stats` prints after a goal (or, at a top level, an answer):
/// `n` inferences in `secs` seconds, then the collector's and the memo
/// table's figures so far.
pub fn stats_lines(m: &Machine, n: u64, secs: f64, parallel: Option<Parallel<'_>>) -> String {
    let mut gc = m.gc_stats();
    if let Some(p) = &parallel {
        gc.add(p.figures.gc);
    }
    let (made, recalled, on) = record_with(m, parallel.map(|p| p.figures));
    let parallel = parallel
        .filter(|p| p.splits > 0)
        .map_or(String::new(), |p| {
            format!(
                "% parallel search: {} workers, {} split{}\n",
                p.workers,
                p.splits,
                if p.splits == 1 { "" } else { "s" }
            )
        });
    format!(
        "{}% {}% {}{}{parallel}",
        inferences_line(n, secs),
        gc_text(gc),
        memo_line(m),
        record_text(made, recalled, on).map_or(String::new(), |l| format!("% {l}"))
    )
}

/// The other workers' figures, when a search ran in parallel (see
/// [`crate::engine::parallel`]): summed over the parts of the search
/// reported so far, and the number of workers and splits.
#[derive(Copy, Clone, Debug)]
pub struct Parallel<'a> {
    /// The other workers' figures.
    pub figures: &'a crate::engine::parallel::Figures,
    /// How many workers the search could have.
    pub workers: usize,
    /// How many times it was split.
    pub splits: u64,
}

/// The look-ahead record's line, when the query made a decision: how
/// many it made and recalled, and whether it turned itself off (positions
/// rarely recurring).
fn record_text(made: u64, recalled: u64, on: bool) -> Option<String> {
    (made > 0).then(|| {
        format!(
            "look-ahead record: {made} decision{} made, {recalled} recalled{}\n",
            if made == 1 { "" } else { "s" },
            if on { "" } else { " (turned off)" }
        )
    })
}

/// The `% N inferences in T s` line that `--stats` and `:time on` print.
pub fn inferences_line(n: u64, secs: f64) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("% {n} inference{s} in {secs:.3} s\n")
}

/// What the heap's garbage collector has done, as `--stats` and `:stats`
/// print it.
fn gc_text(gc: crate::engine::machine::GcStats) -> String {
    format!(
        "garbage collected: {} collection{}, {} reclaimed\n",
        gc.runs,
        if gc.runs == 1 { "" } else { "s" },
        size_text(gc.reclaimed as usize * std::mem::size_of::<crate::term::Cell>())
    )
}

/// The memo table's figures, as `--stats` and `:stats` print them.
pub fn memo_line(m: &Machine) -> String {
    if !m.memo_on() {
        return "memo table:        off\n".to_string();
    }
    let st = m.memo.stats;
    let bound = match m.memo.limit {
        usize::MAX => size_text(m.memo.max_bytes),
        keys => format!("{keys} keys, {}", size_text(m.memo.max_bytes)),
    };
    format!(
        "memo table:        {} key{}, {} (limit {bound}), {} hits, {} misses, {} recorded, {} evicted\n",
        st.size,
        if st.size == 1 { "" } else { "s" },
        size_text(m.memo.bytes_used()),
        st.hits,
        st.misses,
        st.recorded,
        st.evicted
    )
}

/// A number of bytes for people: whole kilobytes below a megabyte, else
/// megabytes or gigabytes with one decimal (units of 1024).
fn size_text(bytes: usize) -> String {
    const K: f64 = 1024.0;
    let b = bytes as f64;
    if b < K * K {
        format!("{} KB", bytes.div_ceil(1024))
    } else if b < K * K * K {
        format!("{:.1} MB", b / (K * K))
    } else {
        format!("{:.1} GB", b / (K * K * K))
    }
}

/// Names of the predicates defined by compiled clauses and by the context,
/// and of the built-ins.
pub fn predicate_names(m: &Machine) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for t in &m.templates {
        for ((p, _), _) in &t.keys {
            names.push(m.symbols.name(*p).to_string());
        }
    }
    for a in &m.ctx.heap_alts {
        names.push(m.symbols.name(a.pred.0).to_string());
    }
    names.extend(
        crate::builtins::Builtin::ALL
            .iter()
            .map(|(n, _)| n.to_string()),
    );
    // Not a fresh symbol's printed name (`helper_1`): typed, it names
    // another constant.
    names.retain(|n| {
        n.chars().next().is_some_and(|c| c.is_alphabetic()) && !m.symbols.is_fresh_text(n)
    });
    names.sort();
    names.dedup();
    names
}
