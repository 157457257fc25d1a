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
//! where one must be used up is reported, one event each.  Unbound
//! variables keep their numbers for the whole query ([`TraceVars`]).

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
    /// The goal, printed, its unbound variables numbered as the whole
    /// trace numbers them ([`TraceVars`]); for `Clause` and `Resource`
    /// events, whose lines do not show it, numbered apart.
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

/// The numbers the trace gives unbound variables (`_1`, `_2`, ...), kept
/// for the whole query: a variable prints with the same number on every
/// line, and no two variables get the same one.  (An answer or a message
/// numbers its variables afresh: [`crate::pretty`].)
///
/// Keys are heap addresses, so the numbers follow the heap: backtracking,
/// which gives back the cells above a mark, forgets theirs
/// ([`TraceVars::forget_from`]), so that a new variable made at an
/// address given back gets a new number; the collector, which moves the
/// cells it keeps, moves their numbers ([`TraceVars::relocate`]).  A
/// number is never given again in the same query.
#[derive(Clone, Debug, Default)]
pub struct TraceVars {
    /// Variable (heap address) to its number.
    numbers: std::collections::BTreeMap<u32, u32>,
    /// The last number given (0: none yet).
    last: u32,
}

impl TraceVars {
    /// Forget every number (a new query starts).
    pub fn clear(&mut self) {
        self.numbers.clear();
        self.last = 0;
    }

    /// The number of the variable at `a`, if it has one.
    pub fn get(&self, a: u32) -> Option<u32> {
        self.numbers.get(&a).copied()
    }

    /// Give the variable at `a` the next number that `taken` refuses
    /// (a name the printer has given already, `_3` written in the query).
    pub fn number(&mut self, a: u32, taken: impl Fn(u32) -> bool) -> u32 {
        self.last += 1;
        while taken(self.last) {
            self.last += 1;
        }
        self.numbers.insert(a, self.last);
        self.last
    }

    /// The heap was cut back to `top` cells: the variables from `top` on
    /// are gone.  (Called at every backtrack: does nothing, at the cost of
    /// one test, unless a trace has numbered variables.)
    #[inline]
    pub fn forget_from(&mut self, top: u32) {
        if !self.numbers.is_empty() {
            self.forget_from_cold(top);
        }
    }

    #[cold]
    #[inline(never)]
    fn forget_from_cold(&mut self, top: u32) {
        if self
            .numbers
            .last_key_value()
            .is_some_and(|(&a, _)| a >= top)
        {
            self.numbers.split_off(&top);
        }
    }

    /// The collector moved the heap's cells: `moved` gives a variable's new
    /// address, or `None` when it was reclaimed (its number goes).
    pub fn relocate(&mut self, moved: impl Fn(u32) -> Option<u32>) {
        if self.numbers.is_empty() {
            return;
        }
        let old = std::mem::take(&mut self.numbers);
        self.numbers = old
            .into_iter()
            .filter_map(|(a, n)| Some((moved(a)?, n)))
            .collect();
    }
}
