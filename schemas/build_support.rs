// Included by the build scripts of the crates whose rows record the code that made them
// (`include!("../../schemas/build_support.rs")`); not a module of the `schemas` library.
//
// `emit_build_id(dirs)` hashes every file under the given folders of the workspace (paths
// relative to its root, the sources of the crate and of the crates whose code it runs) and
// hands the hash to the crate as `FRESHBENCH_BUILD_ID`; cargo reruns the script when a file
// in them changes. The same sources give the same id on every machine (paths are relative,
// no time or toolchain enters), and any change of them gives another one, so a row made by
// an older build is not kept as if this build had made it. `emit_commit()` hands over the
// git commit of the workspace as `FRESHBENCH_COMMIT` (read from `.git`, no process run),
// `unknown` outside a git checkout unless `FRESHBENCH_COMMIT` is set at build time.

#[allow(dead_code)]
fn workspace_root() -> std::path::PathBuf {
    let manifest = std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    manifest
        .ancestors()
        .find(|d| {
            std::fs::read_to_string(d.join("Cargo.toml")).is_ok_and(|t| t.contains("[workspace]"))
        })
        .map_or(manifest.clone(), std::path::Path::to_path_buf)
}

#[allow(dead_code)]
fn emit_build_id(dirs: &[&str]) {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            let compiled = p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pyc"));
            if name == "__pycache__" || name.starts_with('.') || compiled {
                continue;
            }
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    // FNV-1a, twice with different offsets: 128 bits, no dependency for a build script.
    let mut h = [0xcbf2_9ce4_8422_2325_u64, 0x6c62_272e_07bb_0142_u64];
    let mut feed = |bytes: &[u8]| {
        for part in [&(bytes.len() as u64).to_le_bytes()[..], bytes] {
            for b in part {
                for x in &mut h {
                    *x ^= u64::from(*b);
                    *x = x.wrapping_mul(0x0000_0100_0000_01b3);
                }
            }
        }
    };
    let root = workspace_root();
    for d in dirs {
        let dir = root.join(d);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files = Vec::new();
        walk(&dir, &mut files);
        files.sort();
        for f in files {
            let rel = f.strip_prefix(&root).unwrap_or(&f).to_string_lossy().replace('\\', "/");
            feed(rel.as_bytes());
            feed(&std::fs::read(&f).unwrap_or_default());
        }
    }
    println!(
        "cargo:rustc-env=FRESHBENCH_BUILD_ID={:016x}{:016x}",
        h[0], h[1]
    );
}

#[allow(dead_code)]
fn emit_commit() {
    println!("cargo:rerun-if-env-changed=FRESHBENCH_COMMIT");
    let git = workspace_root().join(".git");
    let commit = std::env::var("FRESHBENCH_COMMIT").ok().filter(|c| !c.is_empty()).or_else(|| {
        // Only files that exist: cargo reruns a script on every build for a missing one.
        let watch = |p: &std::path::Path| {
            if p.is_file() {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        };
        let head_file = git.join("HEAD");
        watch(&head_file);
        let head = std::fs::read_to_string(&head_file).ok()?;
        let head = head.trim();
        let Some(name) = head.strip_prefix("ref: ") else {
            return Some(head.to_string());
        };
        let loose = git.join(name);
        let packed = git.join("packed-refs");
        watch(&loose);
        watch(&packed);
        if let Ok(c) = std::fs::read_to_string(&loose) {
            return Some(c.trim().to_string());
        }
        std::fs::read_to_string(&packed).ok()?.lines().find_map(|l| {
            let (c, r) = l.split_once(' ')?;
            (r.trim() == name).then(|| c.to_string())
        })
    });
    println!(
        "cargo:rustc-env=FRESHBENCH_COMMIT={}",
        commit.unwrap_or_else(|| "unknown".into())
    );
}
