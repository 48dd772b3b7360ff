use super::*;

fn parse(source: &str) -> tree_sitter::Tree {
    let mut p = crate::repo::parser().unwrap();
    p.parse(source, None).unwrap()
}

const UTIL: &str = "\
RATE = 0.2


def tax(amount):
    return amount * RATE


def unrelated_banner():
    return '*' * 80
";

const MODELS: &str = "\
class Invoice:
    def __init__(self, lines):
        self.lines = lines

    def total(self):
        return sum(l.price for l in self.lines)
";

const REPORT: &str = "\
def render_invoice_total(invoice):
    return sum(l.price for l in invoice.lines)
";

const SERVICE: &str = "\
from .util import tax
from pkg import models


def bill(invoice):
    gross = invoice.total()
    return gross + tax(gross)
";

fn repo() -> RepoChunks {
    let mut r = RepoChunks::default();
    for (path, text) in [
        ("pkg/util.py", UTIL),
        ("pkg/models.py", MODELS),
        ("pkg/report.py", REPORT),
        ("pkg/service.py", SERVICE),
    ] {
        let tree = parse(text);
        r.add_file(path, chunks(path, text, tree.root_node()));
    }
    r
}

#[test]
fn imports_resolve_relative_and_absolute() {
    let tree = parse(SERVICE);
    let got: Vec<(String, Option<String>)> = imports(SERVICE, tree.root_node(), "pkg/service.py")
        .into_iter()
        .map(|i| (i.module, i.name))
        .collect();
    assert_eq!(
        got,
        [
            ("pkg.util".to_string(), Some("tax".to_string())),
            ("pkg".to_string(), Some("models".to_string())),
        ]
    );
    let src = "import os.path as p\nfrom . import sibling\nfrom ..up import *\n";
    let tree = parse(src);
    let got: Vec<(String, Option<String>)> = imports(src, tree.root_node(), "a/b/c.py")
        .into_iter()
        .map(|i| (i.module, i.name))
        .collect();
    assert_eq!(
        got,
        [
            ("os.path".to_string(), None),
            ("a.b".to_string(), Some("sibling".to_string())),
            ("a.up".to_string(), None),
        ]
    );
}

#[test]
fn chunks_are_top_level_definitions_and_runs() {
    let tree = parse(UTIL);
    let c = chunks("pkg/util.py", UTIL, tree.root_node());
    let names: Vec<&[String]> = c.iter().map(|c| c.names.as_slice()).collect();
    assert_eq!(
        names,
        [
            &["RATE".to_string()][..],
            &["tax".to_string()],
            &["unrelated_banner".to_string()]
        ]
    );
    assert_eq!(c[1].text, "def tax(amount):\n    return amount * RATE");
}

fn chosen(r: &RepoChunks, reference: &str, budget: usize) -> Chosen {
    let start = SERVICE.find(reference).unwrap();
    let end = start + reference.len();
    let tree = parse(SERVICE);
    let imps = imports(SERVICE, tree.root_node(), "pkg/service.py");
    let outside: Vec<&Import> = imps
        .iter()
        .filter(|i| i.end_byte <= start || i.start_byte >= end)
        .collect();
    r.choose(
        "pkg/service.py",
        &outside,
        &SERVICE[..start],
        &SERVICE[end..],
        reference,
        budget,
    )
}

#[test]
fn imported_definitions_first_then_imported_modules_then_bm25() {
    let r = repo();
    let c = chosen(&r, "gross + tax(gross)", 2048);
    let order: Vec<(&str, &str)> = c
        .snippets
        .iter()
        .map(|s| (s.path.as_str(), s.text.lines().next().unwrap_or("")))
        .collect();
    // `tax` is imported by name; util's other chunks and models (imported as a module)
    // come next; report shares identifiers (`invoice`) with the text around the mask.
    assert_eq!(order[0], ("pkg/util.py", "def tax(amount):"));
    assert!(c.snippets[0].score >= 2.0);
    assert!(
        c.snippets[1..4]
            .iter()
            .all(|s| (1.0..2.0).contains(&s.score)),
        "{order:?}"
    );
    assert!(
        order.contains(&("pkg/report.py", "def render_invoice_total(invoice):")),
        "{order:?}"
    );
    assert!(c.snippets.windows(2).all(|w| w[0].score >= w[1].score));
    // Never the masked file itself.
    assert!(c.snippets.iter().all(|s| s.path != "pkg/service.py"));
    assert_eq!(
        c.tokens,
        c.snippets
            .iter()
            .map(|s| bm25::count_tokens(&s.text))
            .sum::<usize>()
    );
}

#[test]
fn the_context_never_holds_the_reference() {
    let r = repo();
    // The masked body is the same code as report's: that snippet is dropped.
    let reference = "return gross + tax(gross)";
    let c = chosen(&r, reference, 2048);
    assert!(c.snippets.iter().all(|s| !holds(&s.text, reference)));
    let mut r2 = repo();
    let copy = "def copy(invoice):\n    gross = invoice.total()\n    return gross + tax(gross)\n";
    let tree = parse(copy);
    r2.add_file("pkg/copy.py", chunks("pkg/copy.py", copy, tree.root_node()));
    let c2 = chosen(&r2, reference, 2048);
    assert_eq!(c2.dropped_leaks, 1);
    assert!(c2
        .snippets
        .iter()
        .all(|s| !s.text.contains(reference) && s.path != "pkg/copy.py"));
}

#[test]
fn the_masked_text_does_not_enter_the_ranking() {
    // Masking the imports' statement itself: the import no longer counts, and the
    // ranking is the one of a file without it.
    let r = repo();
    let with_import = chosen(&r, "gross = invoice.total()", 2048);
    assert!(with_import.snippets[0].score >= 2.0);
    let masked_import = chosen(&r, "from .util import tax", 2048);
    assert!(masked_import.snippets.iter().all(|s| s.score < 2.0));
    // The reference only decides which snippets are dropped for holding it: another
    // reference with the same prefix and suffix ranks the same.
    let at = SERVICE.find("gross + tax").unwrap();
    let (prefix, suffix) = (&SERVICE[..at], &SERVICE[at + "gross + tax(gross)".len()..]);
    let tree = parse(SERVICE);
    let imps = imports(SERVICE, tree.root_node(), "pkg/service.py");
    let imps: Vec<&Import> = imps.iter().collect();
    let a = r.choose(
        "pkg/service.py",
        &imps,
        prefix,
        suffix,
        "gross + tax(gross)",
        2048,
    );
    let b = r.choose(
        "pkg/service.py",
        &imps,
        prefix,
        suffix,
        "banner_text(width)",
        2048,
    );
    assert_eq!(a, b);
}

#[test]
fn the_budget_is_kept() {
    let r = repo();
    for budget in [0, 5, 12, 40, 2048] {
        let c = chosen(&r, "gross + tax(gross)", budget);
        assert!(c.tokens <= budget, "{budget}: {}", c.tokens);
    }
    assert!(chosen(&r, "gross + tax(gross)", 0).snippets.is_empty());
}

#[test]
fn query_is_the_text_near_the_mask() {
    let lines = |tag: &str| -> String {
        (0..100)
            .flat_map(|i| [tag.to_string(), i.to_string(), "\n".into()])
            .collect()
    };
    let (prefix, suffix) = (lines("p"), lines("s"));
    let q = query_text(&prefix, &suffix);
    assert!(!q.contains("p38\n") && q.contains("p41\n") && q.contains("s28") && !q.contains("s31"));
}
