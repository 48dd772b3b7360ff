//! Every table of the contract, grouped by the stage that writes it.

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
