//! The interactive top level: where a goal typed at `?- ` meets the engine.
//!
//! Three parts, so that everything but the terminal can be tested without one:
//! - [`backend`]: the session backend.  Text in (a goal or a `:`-command),
//!   [`Output`]s out; owns the nesting of top levels (`M --o top`, `pop`).
//! - [`commands`]: the `:`-commands, their aliases and the help text.
//! - [`editor`] (line editing with rustyline, for a terminal) and [`piped`]
//!   (plain reading, for a file or a pipe, and for `-e`): the front ends.
//!
//! [`inspect`] has the read-only views of the machine that `:context`,
//! `:stats` and completion use; [`host`] the command line's I/O for the
//! built-ins (with the prompt of `read` at a terminal).

pub mod backend;
pub mod commands;
pub mod editor;
pub mod host;
pub mod inspect;
pub mod piped;

pub use backend::{Answers, Backend, Next, Output, Reply};
