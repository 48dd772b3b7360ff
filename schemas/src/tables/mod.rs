//! Every table of the contract, grouped by the stage that writes it.

// Column docs are prose rendered into TABLES.md (names like Code2Bench or McCabe are
// words there, not code).
#![allow(clippy::doc_markdown)]

mod classify;
mod crawl;
mod execute;
mod mask;
mod resolve;
mod runs;
mod synth;

pub use classify::*;
pub use crawl::*;
pub use execute::*;
pub use mask::*;
pub use resolve::*;
pub use runs::*;
pub use synth::*;
