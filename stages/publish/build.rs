//! Records the git commit freshbench is built from and a hash of its sources (every stage's
//! code and runner, the contract, the SQL views), for the manifest of every snapshot.
include!("../../schemas/build_support.rs");

fn main() {
    emit_commit();
    let root = workspace_root();
    let mut dirs: Vec<String> = vec!["schemas/src".into(), "pipelines/sql".into()];
    if let Ok(stages) = std::fs::read_dir(root.join("stages")) {
        let mut names: Vec<String> = stages
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for n in names {
            for part in ["src", "python"] {
                if root.join("stages").join(&n).join(part).is_dir() {
                    dirs.push(format!("stages/{n}/{part}"));
                }
            }
        }
    }
    println!("cargo:rerun-if-changed={}", root.join("stages").display());
    let dirs: Vec<&str> = dirs.iter().map(String::as_str).collect();
    emit_build_id(&dirs);
}
