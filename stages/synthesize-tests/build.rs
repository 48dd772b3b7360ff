//! Records synthesize-tests' build id: a hash of the code that makes function tasks (this
//! crate, the execution library and its runner, the mutants, the literal decoder of resolve,
//! the table contract).
include!("../../schemas/build_support.rs");

fn main() {
    emit_build_id(&[
        "stages/synthesize-tests/src",
        "stages/execute/src",
        "stages/execution/src",
        "stages/execution/python",
        "stages/mutants/src",
        "stages/resolve/src",
        "schemas/src",
    ]);
}
