//! Terms: interned symbols, cells and the heap.
//!
//! Everything the search builds is a [`cell::Cell`] on the [`cell::Heap`];
//! names and string literals are interned in [`symbols::Symbols`].

pub mod cell;
pub mod closed;
pub mod settled;
pub mod symbols;

pub use cell::{Addr, Cell, Heap};
pub use symbols::{sym, StrId, SymId, Symbols};
