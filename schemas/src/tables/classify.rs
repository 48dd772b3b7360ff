//! Tables written by `classify`.

use crate::enums::FunctionClass;
use crate::table;

table! {
    /// One row per function: its Code2Bench class and every reason that applies.
    pub struct Classification in "classifications" written_by "classify" {
        /// The function (`functions.function_id`).
        pub function_id: String,
        /// The repository.
        pub repo_id: String,
        /// The function's Code2Bench class.
        pub class: FunctionClass,
        /// Every reason code that applies (`no_parameters`, `side_effect:print`, `randomness:random.random`, ...); for accepted functions, notes such as `uses:numpy`.
        pub reasons: Vec<String>,
        /// Allow-listed libraries it uses (weakly self-contained).
        pub libraries: Vec<String>,
        /// Repository-internal definitions it uses (repo-dependent).
        pub internal_deps: Vec<String>,
        /// sha256 of the classification config in force (allow-list and limits), 16 hex digits.
        pub config_hash: String,
    }
}
