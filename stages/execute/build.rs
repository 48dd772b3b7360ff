//! Records execute's build id: a hash of the code that judges (this crate, its runner, the
//! table contract and the mutants library that makes the empty solution).
include!("../../schemas/build_support.rs");

fn main() {
    emit_build_id(&[
        "stages/execute/src",
        "stages/execution/src",
        "stages/execution/python",
        "stages/mutants/src",
        "schemas/src",
    ]);
}
