//! Records slice's build id: a hash of its code (the tracer is execute's, in its build id).
include!("../../schemas/build_support.rs");

fn main() {
    emit_build_id(&["stages/slice/src", "schemas/src"]);
}
