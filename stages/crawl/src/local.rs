//! `path:` sources: a local checkout or unpacked project, read where it is. Its commit is
//! a hash of its file tree, so the same files give the same repository id. A folder has
//! no publication date: the cutoff never skips it, and its changed lines are unknown
//! (null).

use std::path::{Component, Path};

use crate::repo::{Crawled, Draft};
use crate::sources::SourceSpec;
use crate::walk::walk;
use crate::Context;

/// Crawls one local folder.
pub fn crawl(ctx: &Context, spec: &SourceSpec, dir: &Path) -> Crawled {
    let folder_name = dir
        .canonicalize()
        .ok()
        .as_deref()
        .unwrap_or(dir)
        .file_name()
        .map_or_else(
            || dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
    let mut draft = Draft::new(spec, folder_name, ctx.cutoff);
    let exclude = relative_inside(&ctx.data, dir);
    let tree = match walk(dir, &ctx.limits(), true, exclude.as_deref()) {
        Ok(tree) => tree,
        Err(e) => return draft.error(e.to_string()),
    };
    let meta = crate::metadata::from_tree(&tree);
    if let Some(name) = meta.name.clone() {
        draft.name = name;
    }
    draft.version.clone_from(&meta.version);
    draft.commit = Some(tree.hash());
    draft.license = crate::license::detect(&meta.license);
    draft.ok(&tree, &ctx.limits(), None)
}

/// The path of `inner` relative to `root`, `/`-separated, when it lies strictly inside it.
fn relative_inside(inner: &Path, root: &Path) -> Option<String> {
    let (inner, root) = (inner.canonicalize().ok()?, root.canonicalize().ok()?);
    let rel = inner.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rel
        .components()
        .map(|c| {
            if let Component::Normal(s) = c {
                s.to_str()
            } else {
                None
            }
        })
        .collect();
    Some(parts?.join("/")).filter(|p| !p.is_empty())
}

#[cfg(test)]
mod tests {
    use super::relative_inside;

    #[test]
    fn dataset_inside_project() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("proj/out/ds")).unwrap();
        let root = tmp.path().join("proj");
        assert_eq!(
            relative_inside(&root.join("out/ds"), &root).as_deref(),
            Some("out/ds")
        );
        assert_eq!(relative_inside(&root, &root), None);
        assert_eq!(relative_inside(tmp.path(), &root), None);
    }
}
