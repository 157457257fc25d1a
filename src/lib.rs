//! `lolli`: an interpreter for Lolli, the linear logic programming language
//! of Hodas and Miller, faithful to Lolli 0.94's resource semantics and
//! search order.
//!
//! The pipeline, one stage per module, data flowing one way:
//! text → [`syntax`] (tokens, syntax tree with spans) → [`logic`] (clause
//! templates, modules) → [`engine`] (context, proof search with a trail) →
//! answers and proofs ([`proof`]: proof terms, their printers and an
//! independent checker) → [`pretty`] (printing).  [`diagnostics`] renders
//! errors; [`session`] is the embedding API; the command line is thin on top.
#![warn(missing_docs)]

pub mod builtins;
pub mod cli;
pub mod diagnostics;
pub mod engine;
pub mod logic;
pub mod pretty;
pub mod proof;
pub mod repl;
pub mod session;
pub mod source;
pub mod stdio;
pub mod syntax;
pub mod term;
pub mod util;

pub use diagnostics::Error;
pub use engine::Options;
pub use session::{Answer, GoalAt, Outcome, Query, Session, Value};
