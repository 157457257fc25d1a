//! Read-only views of a machine for the top level: the context a query would
//! run with (`:context`), session statistics (`:stats`), and the predicate
//! names that Tab completes.
//!
//! The context is listed in the order in which the search tries its
//! entries: the newest assumption or loaded file first, and the clauses of
//! one file (or one assumption) in the order written.  A clause assumed
//! during a search (by `-o` or `=>`) is printed from the heap.  A clause
//! compiled from a file is a template with an environment: it is printed as
//! the search uses it, with the module's parameters as they were bound at
//! its loading and its `LOCAL` names as the constants of that loading
//! (`key_1`); its own variables keep their source names.  (Printing copies
//! the clause to the heap and removes the copy: the machine is left as it
//! was.)

use crate::engine::context::{Source, GONE};
use crate::engine::Machine;

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

/// The `:context` listing.
pub fn context(m: &mut Machine) -> String {
    let mut unbounded = Vec::new();
    let mut linear = Vec::new();
    for id in (0..m.ctx.entries.len() as u32).rev() {
        let e = m.ctx.entries[id as usize];
        if e.linear {
            let mark = if m.ctx.usable(id) { '*' } else { ' ' };
            linear.push(format!("  {mark} {}.", clause_text(m, e.source)));
        } else if e.state != GONE {
            unbounded.push(format!("    {}.", clause_text(m, e.source)));
        }
    }
    let mut out = String::new();
    if unbounded.is_empty() && linear.is_empty() {
        out.push_str("the context is empty\n");
        return out;
    }
    out.push_str(&format!(
        "unbounded clauses ({}), in the order they are tried (the newest \
         assumption or file first; within one, in the order written):\n",
        unbounded.len()
    ));
    for l in &unbounded {
        out.push_str(l);
        out.push('\n');
    }
    let available = linear.iter().filter(|l| l.starts_with("  *")).count();
    out.push_str(&format!(
        "linear resources ({available} of {} still available, marked *), in the same order:\n",
        linear.len()
    ));
    for l in &linear {
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// The `:stats` report.
pub fn stats(m: &Machine, s: &Stats, depth: usize) -> String {
    let ctx = &m.ctx;
    let linear = ctx.entries.iter().filter(|e| e.linear).count();
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
         {}{}",
        s.queries,
        s.inferences,
        s.search_time.as_secs_f64(),
        ctx.entries.len(),
        ctx.entries.len() - linear,
        m.templates.len(),
        m.modules.len(),
        m.store.heap.len(),
        m.store.trail.entries.len(),
        gc_line(m),
        memo_line(m),
    )
}

/// What `--stats` prints after a goal (or, at a top level, an answer):
/// `n` inferences in `secs` seconds, then the collector's and the memo
/// table's figures so far.
pub fn stats_lines(m: &Machine, n: u64, secs: f64) -> String {
    format!(
        "{}% {}% {}",
        inferences_line(n, secs),
        gc_line(m),
        memo_line(m)
    )
}

/// The `% N inferences in T s` line that `--stats` and `:time on` print.
pub fn inferences_line(n: u64, secs: f64) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("% {n} inference{s} in {secs:.3} s\n")
}

/// What the heap's garbage collector has done, as `--stats` and `:stats`
/// print it.
pub fn gc_line(m: &Machine) -> String {
    let gc = m.gc_stats();
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
    names.retain(|n| n.chars().next().is_some_and(|c| c.is_alphabetic()));
    names.sort();
    names.dedup();
    names
}
