//! The answer cache of HTTP models: one JSON file per key under the cache folder
//! (`<dir>/<key[..2]>/<key>.json`), where the key is a sha256 of everything that shapes
//! the answer: the model spec, the API kind, temperature, max tokens, the sample index, the
//! seed (`--seed`, when given) and the exact request body (which holds the stop sequences
//! and the system message too). A cached answer costs no request. Deleting the folder is safe.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::solver::hash_parts;

/// What defines a cached answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyParts<'a> {
    pub spec: &'a str,
    pub api: &'a str,
    pub temperature: f64,
    pub max_tokens: u32,
    pub sample: u32,
    /// The seed sent (`None`: none; then the key is what it was before `--seed` existed).
    pub seed: Option<u64>,
    pub body: &'a str,
}

/// The cache key: sha256 hex of the length-prefixed parts (and a format tag).
pub fn key(p: &KeyParts<'_>) -> String {
    let temperature = p.temperature.to_bits().to_le_bytes();
    let max_tokens = p.max_tokens.to_le_bytes();
    let sample = p.sample.to_le_bytes();
    let seed = p.seed.map(u64::to_le_bytes);
    let mut parts: Vec<&[u8]> = vec![
        b"freshbench-solve-cache-1",
        p.spec.as_bytes(),
        p.api.as_bytes(),
        &temperature,
        &max_tokens,
        &sample,
    ];
    if let Some(seed) = &seed {
        parts.push(b"seed");
        parts.push(seed);
    }
    parts.push(p.body.as_bytes());
    hex::encode(hash_parts(&parts))
}

/// One cached answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub key: String,
    /// For people reading the folder: which model and sample.
    pub spec: String,
    pub sample: u32,
    /// The model's text.
    pub text: String,
    pub tokens_in: Option<i64>,
    pub tokens_out: Option<i64>,
    /// The latency of the request that made it.
    pub latency_ms: f64,
    pub finish_reason: Option<String>,
}

/// A cache folder.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Cache { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn path(&self, key: &str) -> PathBuf {
        self.dir
            .join(key.get(..2).unwrap_or("xx"))
            .join(format!("{key}.json"))
    }

    /// The entry of a key; a missing or unreadable file is a miss.
    pub fn get(&self, key: &str) -> Option<Entry> {
        let path = self.path(key);
        let text = fs::read_to_string(&path).ok()?;
        match serde_json::from_str::<Entry>(&text) {
            Ok(e) if e.key == key => Some(e),
            Ok(_) => None,
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "unreadable cache entry, asking again");
                None
            }
        }
    }

    /// Stores an entry atomically ([`schemas::io::write_atomic`]).
    pub fn put(&self, entry: &Entry) -> std::io::Result<()> {
        let bytes = serde_json::to_vec(entry)?;
        schemas::io::write_bytes_atomic(&self.path(&entry.key), &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts() -> KeyParts<'static> {
        KeyParts {
            spec: "openai:m@http://127.0.0.1:1/v1",
            api: "chat",
            temperature: 0.0,
            max_tokens: 1024,
            sample: 0,
            seed: None,
            body: "{\"model\":\"m\"}",
        }
    }

    #[test]
    fn keys_depend_on_every_part() {
        let k = key(&parts());
        assert_eq!(k.len(), 64);
        assert_eq!(k, key(&parts()));
        let variants = [
            KeyParts {
                spec: "openai:n@http://127.0.0.1:1/v1",
                ..parts()
            },
            KeyParts {
                api: "completions",
                ..parts()
            },
            KeyParts {
                temperature: 0.2,
                ..parts()
            },
            KeyParts {
                temperature: -0.0,
                ..parts()
            },
            KeyParts {
                max_tokens: 512,
                ..parts()
            },
            KeyParts {
                sample: 1,
                ..parts()
            },
            KeyParts {
                seed: Some(0),
                ..parts()
            },
            KeyParts {
                seed: Some(1),
                ..parts()
            },
            KeyParts {
                body: "{\"model\":\"m\" }",
                ..parts()
            },
        ];
        let mut all = std::collections::BTreeSet::new();
        all.insert(k);
        for v in &variants {
            assert!(all.insert(key(v)), "{v:?} collides");
        }
    }

    #[test]
    fn entries_round_trip_and_misses() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("solve"));
        let k = key(&parts());
        assert_eq!(cache.get(&k), None);
        let e = Entry {
            key: k.clone(),
            spec: "s".into(),
            sample: 0,
            text: "```python\ndef f(): pass\n```".into(),
            tokens_in: Some(12),
            tokens_out: None,
            latency_ms: 3.5,
            finish_reason: Some("stop".into()),
        };
        cache.put(&e).unwrap();
        assert!(cache
            .path(&k)
            .starts_with(dir.path().join("solve").join(&k[..2])));
        assert_eq!(cache.get(&k), Some(e));
        // A corrupt file is a miss, not an error.
        fs::write(cache.path(&k), "{not json").unwrap();
        assert_eq!(cache.get(&k), None);
    }
}
