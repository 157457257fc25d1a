//! The engine: context, store, trail and the search machine.
//!
//! [`machine::Machine`] runs Lolli's proof search (see its module doc for the
//! rules); [`context`] holds the clauses it may use and their index;
//! [`store`] and [`trail`] hold terms and the record of undoable changes;
//! [`memo`] is the failure memo table, whose keys are [`tokens`].

pub mod aggregate;
pub mod builtins;
pub mod closed;
pub mod context;
pub mod copy;
pub mod foreign;
pub mod generalize;
pub mod machine;
pub mod memo;
pub mod parallel;
pub mod runs;
pub mod store;
pub mod tokens;
pub mod trace;
pub mod trail;

pub use machine::{BufferHost, BufferedStdHost, Event, Host, Machine, Options, Rule, StdHost};
