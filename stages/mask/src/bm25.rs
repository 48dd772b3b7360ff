//! BM25 (Okapi) ranking of a repository's code chunks by the identifiers they share with a
//! query, and the tokens the context budget counts.
//!
//! Written here rather than taken from a crate: the crates that exist (`bm25`,
//! `rank-bm25`, `bm25-rerank`) are young single-author projects, the best known of them
//! tokenizes natural language (stemming, stop words, language detection) where code wants
//! identifiers and their sub-words, and none can leave a few documents out of the corpus
//! statistics per query. `mask` needs exactly that: the chunks of the masked file hold the
//! reference, so they must not even weigh the terms (idf, average length) of its ranking,
//! and rebuilding an index per file would cost a pass over the repository each time. The
//! formula is a dozen lines; the index is a term table and per-document term counts.

use std::collections::HashMap;

/// BM25's term-frequency saturation.
const K1: f64 = 1.2;
/// BM25's length normalization.
const B: f64 = 0.75;

/// Python keywords and the names nearly every chunk has: no evidence of relatedness.
const STOP: &[&str] = &[
    "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
    "else", "except", "false", "finally", "for", "from", "global", "if", "import", "in", "is",
    "lambda", "none", "nonlocal", "not", "or", "pass", "raise", "return", "true", "try", "while",
    "with", "yield", "self", "cls",
];

/// The words of a text: maximal runs of letters, digits and `_`, as the context budget
/// counts them (whitespace and punctuation split words and are not counted).
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// Tokens of a text, the unit of `--context-budget`.
pub fn count_tokens(text: &str) -> usize {
    words(text).count()
}

/// The ranking terms of a text: each identifier lowercased, and its sub-words
/// (`parse_http_header`, `parseHttpHeader` -> `parse`, `http`, `header`) when it has more
/// than one; numbers, one-letter names and keywords left out.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for w in words(text) {
        if w.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let lower = w.to_lowercase();
        let parts = subwords(w);
        if parts.len() > 1 {
            out.extend(
                parts
                    .into_iter()
                    .filter(|p| p.len() > 1 && !STOP.contains(&p.as_str())),
            );
        }
        if lower.trim_matches('_').len() > 1 && !STOP.contains(&lower.as_str()) {
            out.push(lower);
        }
    }
    out
}

/// `snake_case` and `camelCase` parts of an identifier, lowercased.
fn subwords(word: &str) -> Vec<String> {
    let mut parts = Vec::new();
    for piece in word.split('_').filter(|p| !p.is_empty()) {
        let mut current = String::new();
        let mut prev_lower = false;
        for c in piece.chars() {
            if c.is_uppercase() && prev_lower && !current.is_empty() {
                parts.push(std::mem::take(&mut current));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            current.extend(c.to_lowercase());
        }
        if !current.is_empty() {
            parts.push(current);
        }
    }
    parts
}

/// A BM25 index over documents given as term lists: an inverted index (per term, the
/// documents holding it and how often), so that a query visits only the documents that
/// share a term with it.
#[derive(Debug, Default)]
pub struct Index {
    vocabulary: HashMap<String, u32>,
    /// Per term: (document, count), by document.
    postings: Vec<Vec<(u32, u32)>>,
    /// Per document: its number of terms.
    lengths: Vec<u32>,
}

impl Index {
    /// Adds a document; its index is the number of documents added before it.
    pub fn add(&mut self, terms: &[String]) -> usize {
        let doc = self.lengths.len() as u32;
        let mut counts: HashMap<u32, u32> = HashMap::new();
        for t in terms {
            let next = self.vocabulary.len() as u32;
            let id = *self.vocabulary.entry(t.clone()).or_insert(next);
            if id as usize == self.postings.len() {
                self.postings.push(Vec::new());
            }
            *counts.entry(id).or_default() += 1;
        }
        for (t, n) in counts {
            self.postings[t as usize].push((doc, n));
        }
        self.lengths.push(terms.len() as u32);
        doc as usize
    }

    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// BM25 scores of every document for the query's distinct terms, computed as if the
    /// documents `excluded` were not in the corpus (their own score is 0): they weigh
    /// neither the terms' idf nor the average length.
    pub fn scores(&self, query: &[String], excluded: &[usize]) -> Vec<f64> {
        let n_docs = self.lengths.len();
        let mut scores = vec![0.0; n_docs];
        let mut is_excluded = vec![false; n_docs];
        for &d in excluded {
            if let Some(x) = is_excluded.get_mut(d) {
                *x = true;
            }
        }
        let kept = is_excluded.iter().filter(|x| !**x).count();
        if kept == 0 {
            return scores;
        }
        let total: u64 = self
            .lengths
            .iter()
            .zip(&is_excluded)
            .filter(|(_, x)| !**x)
            .map(|(l, _)| u64::from(*l))
            .sum();
        let avg = (total as f64 / kept as f64).max(1.0);
        let mut qterms: Vec<u32> = query
            .iter()
            .filter_map(|t| self.vocabulary.get(t).copied())
            .collect();
        qterms.sort_unstable();
        qterms.dedup();
        let n = kept as f64;
        for t in qterms {
            let postings = &self.postings[t as usize];
            let df = postings
                .iter()
                .filter(|(d, _)| !is_excluded[*d as usize])
                .count();
            if df == 0 {
                continue;
            }
            let df = df as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for &(d, tf) in postings {
                let d = d as usize;
                if is_excluded[d] {
                    continue;
                }
                let tf = f64::from(tf);
                let norm = K1 * (1.0 - B + B * f64::from(self.lengths[d]) / avg);
                scores[d] += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        scores
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> Vec<String> {
        terms(text)
    }

    #[test]
    fn terms_are_identifiers_and_their_parts() {
        assert_eq!(
            t("def parseHttpHeader(self, raw_line): return 42"),
            [
                "parse",
                "http",
                "header",
                "parsehttpheader",
                "raw",
                "line",
                "raw_line"
            ]
        );
        assert_eq!(count_tokens("x = f(a, b)  # two\n"), 5);
    }

    #[test]
    fn ranks_by_shared_rare_terms_and_leaves_excluded_documents_out() {
        let mut idx = Index::default();
        let load = idx.add(&t("def load_config(path): return read_toml(path)"));
        let render = idx.add(&t(
            "def render(template, context): return template.format(context)",
        ));
        let read = idx.add(&t(
            "def read_toml(path): return toml.loads(open(path).read())",
        ));
        let query = t("cfg = load_config(path)");
        let all = idx.scores(&query, &[]);
        assert!(
            all[load] > all[read] && all[read] > 0.0 && all[render] == 0.0,
            "{all:?}"
        );
        // Excluded: no score, and the corpus is as if it were absent.
        let without_load = idx.scores(&query, &[load]);
        assert!(without_load[load] == 0.0 && without_load[read] > 0.0);
        let mut smaller = Index::default();
        smaller.add(&t(
            "def render(template, context): return template.format(context)",
        ));
        let read2 = smaller.add(&t(
            "def read_toml(path): return toml.loads(open(path).read())",
        ));
        assert!((smaller.scores(&query, &[])[read2] - without_load[read]).abs() < 1e-12);
    }
}
