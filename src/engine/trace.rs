//! Step-by-step tracing of the search, for people learning how it works.
//!
//! When a [`Tracer`] is installed (`Machine::tracer`), the machine reports
//! each call of a predicate or built-in, the clause or resource it uses,
//! calls that fail (memoized failures included), retries of a call's next
//! alternative, assumptions, and linear resources left unused where they
//! had to be used up.  Nothing is
//! computed for tracing when no tracer is installed.
//!
//! A call whose candidate's head does not match shows nothing for it: the
//! next candidate is tried without a `redo`, which marks only a call
//! that had succeeded being resumed.  Every linear resource left unused
//! where one must be used up is reported, one event each.

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceKind {
    /// A predicate is called.
    Call,
    /// A program or assumed clause is used for the call.
    Clause,
    /// A linear resource is used (and consumed) for the call.
    Resource,
    /// No (more) clause or resource matches the call: backtrack.
    Fail,
    /// Backtracking resumes a call with its next alternative.
    Redo,
    /// Formulas are assumed (linear or unbounded) for a goal.
    Assume,
    /// A linear resource is still unused where it had to be used up (the
    /// end of its `-o`, or of the query): backtrack.  `goal` is the
    /// resource, `detail` says where.
    Unused,
}

/// One step of the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    /// What happened.
    pub kind: TraceKind,
    /// Clause uses from the query to this goal.
    pub depth: u32,
    /// The goal, printed.
    pub goal: String,
    /// The clause or resource used, or what was assumed, printed.
    pub detail: String,
}

/// Receives trace events.
pub trait Tracer {
    /// One step.
    fn event(&mut self, event: TraceEvent);
}

impl std::fmt::Display for TraceEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let indent = "  ".repeat(self.depth.min(40) as usize);
        let (word, sep) = match self.kind {
            TraceKind::Call => ("call", ""),
            TraceKind::Clause => ("  by", " using "),
            TraceKind::Resource => ("  by", " consuming "),
            TraceKind::Fail => ("fail", ""),
            TraceKind::Redo => ("redo", ""),
            TraceKind::Assume => ("assume", ", to prove "),
            TraceKind::Unused => ("unused", ""),
        };
        match self.kind {
            TraceKind::Clause | TraceKind::Resource => {
                write!(f, "{indent}{word}{sep}{}", self.detail)
            }
            TraceKind::Assume => write!(f, "{indent}{word} {}{sep}{}", self.detail, self.goal),
            TraceKind::Unused => write!(
                f,
                "{indent}{word} {}  (a linear resource must be used up by the end of {})",
                self.goal, self.detail
            ),
            _ if !self.detail.is_empty() => {
                write!(f, "{indent}{word} {}  ({})", self.goal, self.detail)
            }
            _ => write!(f, "{indent}{word} {}", self.goal),
        }
    }
}
