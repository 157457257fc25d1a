//! Read-only views of a machine for the top level: the context a query would
//! run with (`:context`), session statistics (`:stats`), and the predicate
//! names that Tab completes.
//!
//! The context is listed newest first, the order in which the search tries
//! clauses.  A clause compiled from a file is shown as written there (blanks
//! and comments folded into single spaces); a clause assumed during a search
//! (by `-o` or `=>`) is printed from the heap.

use crate::engine::context::{Source, GONE};
use crate::engine::Machine;

use super::backend::Stats;

/// One clause of the context, printed.
fn clause_text(m: &Machine, source: Source) -> String {
    match source {
        Source::Template { tpl, .. } => {
            let Some(t) = m.templates.get(tpl as usize) else {
                return format!("<clause {tpl}>");
            };
            let text = t.origin.as_ref().and_then(|(file, span)| {
                m.sources
                    .get(*file)
                    .and_then(|f| f.text.get(span.clone()))
                    .map(fold_blanks)
            });
            match text {
                Some(s) if !s.is_empty() => s,
                _ => {
                    let preds: Vec<String> = t
                        .keys
                        .iter()
                        .map(|((p, n), _)| format!("{}/{n}", m.symbols.name(*p)))
                        .collect();
                    format!("<a clause for {}>", preds.join(", "))
                }
            }
        }
        Source::Heap { clause, .. } => m.show(clause),
    }
}

/// Source text with comments dropped and each run of blanks made one space.
fn fold_blanks(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let code = strip_comment(line);
        for word in code.split_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
    }
    out.trim_end_matches('.').to_string()
}

/// The part of a line before a `%` comment (a `%` inside quotes does not count).
fn strip_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '%') => return &line[..i],
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
    }
    line
}

/// The `:context` listing.
pub fn context(m: &Machine) -> String {
    let ctx = &m.ctx;
    let mut unbounded = Vec::new();
    let mut linear = Vec::new();
    for id in (0..ctx.entries.len() as u32).rev() {
        let e = &ctx.entries[id as usize];
        if e.linear {
            let mark = if ctx.usable(id) { '*' } else { ' ' };
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
        "unbounded clauses ({}), tried newest first:\n",
        unbounded.len()
    ));
    for l in &unbounded {
        out.push_str(l);
        out.push('\n');
    }
    let available = linear.iter().filter(|l| l.starts_with("  *")).count();
    out.push_str(&format!(
        "linear resources ({available} of {} still available, marked *):\n",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_drops_comments_and_blanks() {
        assert_eq!(
            fold_blanks("jump (s N) :-\n    b X Y peg , % first\n    jump N."),
            "jump (s N) :- b X Y peg , jump N"
        );
        assert_eq!(fold_blanks("w '%' :- true."), "w '%' :- true");
    }
}
