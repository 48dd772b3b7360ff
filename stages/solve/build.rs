//! Records solve's build id: a hash of the code that makes requests and answers (this
//! crate, the mutants library of the reference solvers, the table contract).
include!("../../schemas/build_support.rs");

fn main() {
    emit_build_id(&["stages/solve/src", "stages/mutants/src", "schemas/src"]);
}
