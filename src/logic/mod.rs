//! Formulas: clause normal forms, clause templates, index keys and modules.
//!
//! This stage turns syntax trees into what the engine runs: program clauses
//! become [`template::Template`]s (compiled once), a program file becomes a
//! [`module::Module`], and [`clause`] classifies terms into clauses (for both
//! templates and formulas assumed during search); [`warnings`] gives advice
//! about a loaded program.

pub mod clause;
pub mod keys;
pub mod lookahead;
pub mod module;
pub mod move_plan;
pub mod template;
pub mod warnings;
