//! The dataset card, `README.md`: a YAML header the Hugging Face Hub and the `datasets`
//! library read (the configs of [`crate::version::configs`]: `latest`, the default, and the
//! quarter's on the tasks, one per table, each with a `test` split of its Parquet file; the
//! licenses; a pretty name and tags), then a body for people: the quarter, the cutoff and
//! the task-version rule, what the tables hold, their columns (from the schemas crate's
//! documentation), the sources, the license policy and what it left out, and how to check
//! the files.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use arrow::datatypes::DataType;

use crate::license::{hub_license, Policy};
use schemas::Table as _;

use crate::manifest::Manifest;
use crate::version::{self, Quarter, TASK_ID_RULES};

/// A table cell: no line breaks, `|` escaped, no HTML.
fn cell(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
        .replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A double-quoted YAML scalar (JSON's string syntax is valid YAML).
fn yaml_str(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into())
}

fn size_category(n: usize) -> &'static str {
    match n {
        0..=999 => "n<1K",
        1_000..=9_999 => "1K<n<10K",
        10_000..=99_999 => "10K<n<100K",
        100_000..=999_999 => "100K<n<1M",
        _ => "1M<n<10M",
    }
}

/// What one row of a table is, for the contents list.
fn row_meaning(table: &str) -> &'static str {
    match table {
        "function_tasks" => "a function task: implement a function from its signature and docstring",
        "test_cases" => "a test case of a function task: arguments and the behaviour the original showed",
        "validations" => "a published task, checked by running it (the original passes, an empty solution fails, results are stable)",
        "repos" => "a source repository of the published tasks",
        "completion_tasks" => "a completion task: a repository file with one syntax span masked, judged by the repository's own tests",
        "files" => "a file of a repository with published completion or assertion tasks: path, sha256, text (or bytes)",
        "assertion_tasks" => "an assertion task: a real assertion of a repository test with its expected value masked, on the original program or a mutated variant, in the value or verify form",
        "slices" => "the difficulty of a published task, from the dynamic slice of the run that judges it: ESV (reading load), MCL (simulation depth) and DFI (integration width), null unless `status` is `ok` (else `reason` says why)",
        _ => "",
    }
}

/// The Hub license ids of the published code, sorted (`other` for licenses the Hub has no
/// id for).
pub fn hub_licenses(manifest: &Manifest, policy: &Policy) -> Vec<String> {
    let mut ids: BTreeSet<String> = BTreeSet::new();
    for s in &manifest.sources {
        let granted = s
            .license
            .as_deref()
            .and_then(|l| crate::license::parse(l).ok())
            .map(|e| policy.granted(&e))
            .unwrap_or_default();
        if granted.is_empty() {
            ids.insert("other".into());
        }
        for g in granted {
            ids.insert(hub_license(&g).unwrap_or("other").to_string());
        }
    }
    ids.into_iter().collect()
}

/// Arrow type names as `schemas/TABLES.md` writes them.
fn type_name(dt: &DataType) -> String {
    match dt {
        DataType::List(f) => format!("list<{}>", type_name(f.data_type())),
        DataType::Struct(fields) => {
            let inner: Vec<String> = fields
                .iter()
                .map(|f| format!("{}: {}", f.name(), type_name(f.data_type())))
                .collect();
            format!("struct<{}>", inner.join(", "))
        }
        DataType::Timestamp(_, _) => "timestamp(us, UTC)".into(),
        other => other.to_string().to_lowercase(),
    }
}

/// `name count` of each group, the known ones in their order, then the others by name.
fn counts(by: &std::collections::BTreeMap<String, usize>, order: &[&str]) -> Vec<String> {
    order
        .iter()
        .filter_map(|l| by.get(*l).map(|n| format!("{l} {n}")))
        .chain(
            by.iter()
                .filter(|(l, _)| !order.contains(&l.as_str()))
                .map(|(l, n)| format!("{} {n}", cell(l))),
        )
        .collect()
}

/// The published tasks per family: completion tasks by level, assertion tasks by form and
/// by program.
fn families(out: &mut String, manifest: &Manifest) {
    if manifest.families.is_empty() {
        return;
    }
    out.push_str("## Task families\n\n| family | tasks | by level |\n|---|---|---|\n");
    for family in schemas::Family::TEXTS {
        let Some(f) = manifest.families.get(*family) else {
            continue;
        };
        let mut levels = counts(&f.by_level, schemas::SpanKind::TEXTS);
        let forms = counts(&f.by_form, schemas::AssertionForm::TEXTS);
        let programs = counts(&f.by_program, &["original", "mutated"]);
        if !forms.is_empty() {
            levels.push(format!("form: {}", forms.join(", ")));
        }
        if !programs.is_empty() {
            levels.push(format!("program: {}", programs.join(", ")));
        }
        if let Some(n) = f.assertions {
            levels.push(format!("{n} assertion{}", if n == 1 { "" } else { "s" }));
        }
        let separator = if forms.is_empty() && programs.is_empty() {
            ", "
        } else {
            "; "
        };
        let _ = writeln!(
            out,
            "| `{family}` | {} | {} |",
            f.tasks,
            levels.join(separator)
        );
    }
    out.push('\n');
    if manifest.families.contains_key("function") {
        out.push_str("`function`: write a function from its signature and docstring. ");
    }
    if manifest.families.contains_key("completion") {
        out.push_str(
            "`completion`: fill one masked span of a repository file, at one of four syntax \
             levels (`span_kind`): an `expression`, a `statement`, a `block` or a whole \
             `function`. ",
        );
    }
    if manifest.families.contains_key("assertion") {
        out.push_str(
            "`assertion`: a real assertion of a repository test with its expected value \
             masked, in two forms: `value` (give the value the code produces) or `verify` \
             (say whether the assertion shown with a claimed value holds); each assertion is \
             posed on the `original` program and on `mutated` variants of it, where the \
             value differs, so that an answer recalled from the repository is wrong. ",
        );
    }
    out.push_str("\n\n");
}

/// How a completion task is judged, and its export.
fn completion_judging(out: &mut String, manifest: &Manifest) {
    out.push_str(
        "## How a completion task is judged\n\nA row of `completion_tasks` is a file \
         (`path`) of a repository (`repo_id`) with the bytes `start_byte..end_byte` (lines \
         `start_line..end_line`) masked: the model gets `prefix` (the text before), `suffix` \
         (the text after) and `context` (snippets of other files of the repository, ranked \
         from the prefix and suffix only, within `context_budget` tokens) and writes the \
         span; `reference` is the original text and `indent` the indentation its first line \
         had. The answer is put in place (`prefix + answer + suffix`, re-indented to `indent`) \
         and the repository's own tests named in `tests` (pytest node ids, run from the \
         repository's root) are run: the answer passes when every one of them passes. These \
         judges are the repository's passing, non-flaky tests that execute the span; \
         together they execute every line of it, and validation checked that they fail when \
         the span is deleted or replaced by `pass`, `None` or `raise NotImplementedError` \
         (`validations.mutants_killed` of `mutants_total` counts the mutants of the span they \
         catch). The repository is described below.\n\n",
    );
    if let Some((path, e)) = manifest
        .exports
        .iter()
        .find(|(_, e)| e.format == "freshbench-completion")
    {
        let _ = writeln!(
            out,
            "`{}` has one JSON object per completion task ({} tasks, {} judge tests): \
             `task_id` (`freshbench/` and the task's id), `repo` (`repo_id`, `name`, \
             `version`, `spec`, `url`, `commit`, `files_sha256`), `path`, `span_kind`, \
             `start_line`, `end_line`, `start_byte`, `end_byte`, `prefix`, `suffix`, \
             `reference`, `indent`, `context`, `tests`, `code_date`, `code_date_source` and \
             `after_cutoff`. Load it with `load_dataset(\"json\", data_files=\"PATH/{}\", \
             split=\"train\")`.\n",
            cell(path),
            e.tasks,
            e.cases,
            cell(path)
        );
    }
}

/// How an assertion task is judged, and its export.
fn assertion_judging(out: &mut String, manifest: &Manifest) {
    out.push_str(
        "## How an assertion task is judged\n\nA row of `assertion_tasks` is one real \
         assertion of a repository test (`test_node_id`, in the file `path`, at `line`) with \
         its expected value masked, posed on a program: the repository as crawl read it \
         (`mutated = false`) or a mutated variant of it (`mutated = true`: the repository \
         with the file `mutated_path` replaced by `mutated_text`; `mutation` says what \
         changed, `mutant_id` names the mutant). The model gets `test_source` (the test \
         function after the test file's imports, the assertion shown as `masked_assertion`) \
         and `code_context` (the repository code the test runs, ranked by how much of it \
         ran, the mutated function first on a variant). In the `value` form the assertion \
         holds `??` where its expected value was, and the answer is the value of `subject` \
         on the task's program (`answer`, as Python text; `value_json` is that value as \
         recorded by running the test, tagged with its exact type). In the `verify` form the \
         assertion holds a claimed value (`claim`) and the answer is `True` or `False`. \
         `kind` says what the subject is compared with: `equal`, `approx` (within pytest's \
         default tolerance), `truth`, or `raises` (the answer is the exception type's \
         name). An answer that is a Python literal is compared with the recorded value; \
         any other answer (an object's constructor, say) is put into the assertion and the \
         test run on the task's program, in the repository described below, where Python's \
         `==` decides as the test would.\n\nThe tasks of one assertion share `group_id`. On \
         a variant the value differs from the original program's (`original_json`, the \
         answer a model that recalls the repository would give; validation checked that it \
         fails there), so pass@1 on the originals minus pass@1 on the variants measures \
         memorization: a model that works the values out from the code scores alike on \
         both.\n\n",
    );
    if let Some((path, e)) = manifest
        .exports
        .iter()
        .find(|(_, e)| e.format == crate::assertion::FORMAT)
    {
        let _ = writeln!(
            out,
            "`{}` has one JSON object per assertion task ({} tasks of {} assertion{}): \
             `task_id` (`freshbench/` and the task's id), `group_id`, `repo` (`repo_id`, \
             `name`, `version`, `spec`, `url`, `commit`, `files_sha256`), `test_node_id`, \
             `path`, `line`, `start_byte`, `end_byte`, `kind`, `form`, `subject`, \
             `test_source`, `masked_assertion`, `code_context`, `mutated`, `mutant_id`, \
             `mutation`, `mutated_path`, `mutated_text`, `claim`, `answer`, `value_json`, \
             `value_python`, `original_json`, `code_date`, `code_date_source` and \
             `after_cutoff`. Load it with `load_dataset(\"json\", data_files=\"PATH/{}\", \
             split=\"train\")`.\n",
            cell(path),
            e.tasks,
            e.cases,
            if e.cases == 1 { "" } else { "s" },
            cell(path)
        );
    }
}

/// How to get the repositories of completion and assertion tasks back.
fn repository_files(out: &mut String, manifest: &Manifest) {
    let judged = match (
        manifest.families.contains_key("completion"),
        manifest.families.contains_key("assertion"),
    ) {
        (true, true) => {
            "Completion tasks are judged by their repository's tests, and assertion tasks by \
             running their test,"
        }
        (true, false) => "Completion tasks are judged by their repository's tests,",
        _ => "Assertion tasks are judged by running their test,",
    };
    let _ = writeln!(
        out,
        "## The repositories\n\n{judged} in the repository's tree as crawl read it.\n"
    );
    let included = manifest.tables.get(schemas::File::NAME);
    match included {
        Some(t) => {
            let _ = writeln!(
                out,
                "The repositories' files are in `{}` ({} rows): every file crawl kept of each \
                 repository with a completion or assertion task (sources, tests, dependency \
                 files, data files the tests read; text in `content`, or `bytes` for a file \
                 that is not text; skipped files with their `reason`), which is the tree the \
                 tests run in. freshbench's `execute` builds the tree and the environment from \
                 them.\n",
                cell(&t.path),
                t.rows
            );
        }
        None => out.push_str(
            "The repositories' files are not in this snapshot (it was made with \
             `--no-repo-files`): fetch each repository again from its source below \
             (`crawl SPEC` with the spec, or the URL and version), and check it with its files \
             hash.\n\n",
        ),
    }
    out.push_str(
        "Each repository's files hash (`files_sha256` below, in `manifest.json` and in the \
         JSON-lines export) is the sha256 of one line `PATH<TAB>SHA256<LF>` per file, sorted \
         by path, where `SHA256` is the sha256 of the file's bytes; with the files table:\n\n\
         ```python\nimport hashlib\nimport pyarrow.parquet as pq\n\nrows = \
         pq.read_table(\"data/files.parquet\", columns=[\"repo_id\", \"path\", \
         \"sha256\"]).to_pylist()\nlisting = sorted((r[\"path\"], r[\"sha256\"]) for r in rows \
         if r[\"repo_id\"] == REPO_ID)\nprint(hashlib.sha256(\"\".join(f\"{p}\\t{h}\\n\" for p, h in \
         listing).encode()).hexdigest())\n```\n\n`publish --verify` checks it, and each file's text \
         against its sha256.\n\n| repository | version | source | files | files_sha256 |\n\
         |---|---|---|---|---|\n",
    );
    for src in manifest.sources.iter().filter(|s| s.files_sha256.is_some()) {
        let _ = writeln!(
            out,
            "| {} | {} | `{}` | {} | `{}` |",
            cell(&src.name),
            cell(src.version.as_deref().unwrap_or("")),
            cell(&src.spec),
            src.files.unwrap_or(0),
            cell(src.files_sha256.as_deref().unwrap_or(""))
        );
    }
    out.push('\n');
}

/// The quarter, the cutoff and the configs that name this snapshot.
fn versions(out: &mut String, manifest: &Manifest) {
    out.push_str("## Quarter and cutoff\n\n");
    let quarter = Quarter::parse(&manifest.quarter).ok();
    match quarter {
        Some(q) => {
            let _ = writeln!(
                out,
                "**Quarter: {q}**, the benchmark's version ({}).\n",
                if manifest.quarter_source == "--quarter" {
                    "given to `publish --quarter`".to_string()
                } else {
                    format!("the quarter of the snapshot's date, {}", manifest.date)
                }
            );
        }
        None => out.push_str("No quarter was recorded for this snapshot.\n\n"),
    }
    let date = |c: &str| c.get(..10).unwrap_or(c).to_string();
    let s = &manifest.selection;
    match (&manifest.cutoff, manifest.cutoff_source.as_deref()) {
        (Some(c), Some("--cutoff")) if s.include_old => {
            let _ = writeln!(
                out,
                "**Cutoff: {}.** Each task's code is dated per function against the releases \
                 (or commits) of its repository published before the cutoff. Tasks of code \
                 newer than the cutoff are marked `after_cutoff = true`; the {} tasks of older \
                 code are included too, marked `after_cutoff = false`: a model whose training \
                 data ends before the cutoff may have seen their code.\n",
                date(c),
                s.tasks_old
            );
        }
        (Some(c), Some("--cutoff")) => {
            let _ = writeln!(
                out,
                "**Cutoff: {}.** Every task's code is newer than it: each function is dated \
                 against the releases (or commits) of its repository published before the \
                 cutoff, since a new release of a mature library is mostly old code. {} valid \
                 tasks of older code were left out. A model whose training data ends before the \
                 cutoff has not seen the code of these tasks.\n",
                date(c),
                s.tasks_old
            );
        }
        (Some(c), _) => {
            let _ = writeln!(
                out,
                "**Cutoff: {}** (the earliest cutoff the crawl of the sources had, its \
                 `--since`). The tasks are not filtered by it: each says whether its code is \
                 newer (`after_cutoff`, `code_date`, `code_date_source`).\n",
                date(c)
            );
        }
        (None, _) => {
            out.push_str(
                "No cutoff was recorded for these sources: see each task's `code_date`.\n\n",
            );
        }
    }

    let Some(q) = quarter else {
        return;
    };
    // The versioned configs, grouped by the file they read (`latest` and `2026q4`, ...).
    let mut by_file: Vec<(&str, Vec<String>)> = Vec::new();
    let configs = version::configs(manifest);
    for c in configs
        .iter()
        .filter(|c| !manifest.tables.contains_key(&c.name))
    {
        let name = format!("`{}`", c.name);
        match by_file.iter_mut().find(|(p, _)| *p == c.path) {
            Some((_, names)) => names.push(name),
            None => by_file.push((&c.path, vec![name])),
        }
    }
    let listed: Vec<String> = by_file
        .iter()
        .map(|(path, names)| format!("{} read `{}`", names.join(" and "), cell(path)))
        .collect();
    let pinned = q.config_name();
    let _ = writeln!(
        out,
        "The configs of the header: {}; each table also has a config of its own name. \
         `{latest}` is the default. The next quarter's snapshot has `{latest}` on its own \
         tasks, while `{pinned}` names these: load `{pinned}` to pin this quarter, `{latest}` \
         to follow the benchmark.\n",
        listed.join("; "),
        latest = version::LATEST
    );
}

/// The task-version rule: what each published family's ids are a hash of, from
/// [`TASK_ID_RULES`].
fn task_ids(out: &mut String, manifest: &Manifest) {
    let families: Vec<schemas::Family> = TASK_ID_RULES
        .iter()
        .map(|r| r.family)
        .filter(|f| manifest.tables.contains_key(version::task_table(*f)))
        .collect();
    if families.is_empty() {
        return;
    }
    out.push_str(
        "## Task ids across quarters\n\nA task's id changes only when what defines it \
         changes. `task_id` is a hash of the fields that define the task and of nothing else: \
         not the snapshot's date, quarter or cutoff, the code's date, the license, the \
         validation, the stages' options or freshbench's version (these change an id only \
         by changing a defining field). So the same fields give the same id in every \
         quarter's snapshot: a task kept from one quarter to the next keeps its id, and a \
         task whose defining fields changed gets a new one. The fields, per family:\n\n",
    );
    for family in &families {
        let rule = version::rule(*family);
        let inputs: Vec<String> = rule.inputs.iter().map(|i| format!("`{i}`")).collect();
        let _ = writeln!(
            out,
            "- `{}` (`{}`): {}; {}.",
            family.as_str(),
            version::task_table(*family),
            inputs.join(", "),
            rule.note
        );
    }
    out.push_str(
        "\n`repo_id` is the hash of the source's kind, the project's name and its version \
         (pypi) or commit (git; a hash of the file tree for a folder): another release or \
         commit of a project gives all its tasks new ids, also where their code did not \
         change, and the same release crawled again gives the same ones. Not in the id \
         either: what judges a task (a function task's test cases, a completion task's judge \
         tests) and what a task shows besides its defining fields (a completion task's \
         `prefix`, `suffix` and `context`, an assertion task's `test_source` and \
         `code_context`). To check an id, hash the fields in this order (text as UTF-8, \
         integers in decimal, a null as empty text), each preceded by its length in bytes as \
         8 bytes little-endian, and keep the first 32 hex digits of the sha256:\n\n```python\n",
    );
    out.push_str(&version::python_recipe(&families));
    out.push_str("```\n\n");
}

/// The card.
pub fn render(manifest: &Manifest, policy: &Policy) -> String {
    let mut out = String::new();
    let title = format!("{} {}", manifest.name, manifest.date);
    let licenses = hub_licenses(manifest, policy);
    let total_tasks = manifest.selection.tasks_published;

    // ---- YAML header
    out.push_str("---\n");
    let _ = writeln!(out, "pretty_name: {}", yaml_str(&title));
    out.push_str("license:\n");
    for l in &licenses {
        let _ = writeln!(out, "- {l}");
    }
    if licenses.iter().any(|l| l == "other") {
        out.push_str("license_name: freshbench-sources\n");
        let _ = writeln!(
            out,
            "license_details: {}",
            yaml_str(
                "Each task keeps the license of the repository it was made from; the \
                 Licenses section of this card and manifest.json list them."
            )
        );
    }
    out.push_str("language:\n- en\n");
    out.push_str("tags:\n");
    for t in [
        "code",
        "python",
        "benchmark",
        "code-generation",
        "execution-based-evaluation",
        "freshbench",
    ] {
        let _ = writeln!(out, "- {t}");
    }
    out.push_str("task_categories:\n- text-generation\n");
    let _ = writeln!(out, "size_categories:\n- {}", size_category(total_tasks));
    out.push_str("configs:\n");
    for c in version::configs(manifest) {
        let _ = writeln!(out, "- config_name: {}", c.name);
        out.push_str("  data_files:\n");
        let _ = writeln!(out, "  - split: test\n    path: {}", yaml_str(&c.path));
        if c.default {
            out.push_str("  default: true\n");
        }
    }
    // The JSON-lines export gets no config: `datasets` picks one builder for all the configs
    // of a folder (Parquet here), and would read the export as Parquet.
    out.push_str("---\n\n");

    // ---- Body
    let _ = writeln!(out, "# {title}\n");
    let completion = manifest.families.get("completion");
    let assertion = manifest.families.get("assertion");
    let _ = writeln!(
        out,
        "A dated snapshot of freshbench, a benchmark for \
         code models rebuilt every quarter from recently published Python repositories. Every \
         task is judged by running code: test cases whose expected values were recorded by \
         running the original function{}{}, never a fixed answer key. Every task here was \
         validated by running it (its reference solution passes, an empty one fails, results \
         are stable).\n",
        if completion.is_some() {
            ", or the repository's own tests"
        } else {
            ""
        },
        if assertion.is_some() {
            ", or the values a repository test's assertions see when it runs, on the original \
             program and on mutated variants of it"
        } else {
            ""
        }
    );
    let commit = manifest
        .freshbench_commit
        .as_deref()
        .map_or_else(|| "unknown commit".to_string(), |c| format!("commit `{c}`"));
    let _ = writeln!(
        out,
        "Made by freshbench {} ({commit}), table schema version {}, on {}.\n",
        manifest.freshbench_version, manifest.schema_version, manifest.date
    );
    let s = &manifest.selection;
    versions(&mut out, manifest);
    task_ids(&mut out, manifest);

    out.push_str("## Contents\n\n| config | file | rows | one row per |\n|---|---|---|---|\n");
    for (name, t) in &manifest.tables {
        let _ = writeln!(
            out,
            "| `{name}` | `{}` | {} | {} |",
            cell(&t.path),
            t.rows,
            row_meaning(name)
        );
    }
    for (path, e) in &manifest.exports {
        let _ = writeln!(
            out,
            "| (no config) | `{}` | {} | {} |",
            cell(path),
            e.tasks,
            match e.format.as_str() {
                "humaneval" => "a function task in HumanEval's shape (see below)",
                crate::assertion::FORMAT => {
                    "an assertion task with its test, program and recorded value (see below)"
                }
                _ => "a completion task with its repository and judges (see below)",
            }
        );
    }
    out.push('\n');
    families(&mut out, manifest);
    let _ = writeln!(
        out,
        "Of {} tasks in the dataset this snapshot was made from, {} are published: {} were \
         rejected by test synthesis, {} are not valid (or were not validated), and {} come \
         from repositories whose license is not in the allow-list.\n",
        s.tasks_read,
        s.tasks_published,
        s.tasks_rejected,
        s.tasks_not_valid,
        s.tasks_excluded_by_license
    );

    out.push_str("## Loading\n\nWith the Hugging Face `datasets` library, one config per table:\n\n```python\nfrom datasets import load_dataset\n\n");
    let _ = writeln!(
        out,
        "tasks = load_dataset(\"path/to/{}-{}\", \"function_tasks\", split=\"test\")",
        manifest.name, manifest.date
    );
    let _ = writeln!(
        out,
        "cases = load_dataset(\"path/to/{}-{}\", \"test_cases\", split=\"test\")",
        manifest.name, manifest.date
    );
    if completion.is_some() {
        let _ = writeln!(
            out,
            "completion = load_dataset(\"path/to/{}-{}\", \"completion_tasks\", split=\"test\")",
            manifest.name, manifest.date
        );
    }
    if assertion.is_some() {
        let _ = writeln!(
            out,
            "assertion = load_dataset(\"path/to/{}-{}\", \"assertion_tasks\", split=\"test\")",
            manifest.name, manifest.date
        );
    }
    out.push_str(
        "```\n\nThe files are plain Parquet: pyarrow, pandas, Polars, DuckDB or DataFusion read \
         them as they are (`SELECT * FROM 'data/function_tasks.parquet'`). Tables join on \
         `task_id` (tasks, cases, validations, slices) and `repo_id` (tasks, repos). Each \
         file carries `freshbench.table` and `freshbench.schema_version` in its Parquet \
         key-value metadata.\n\n",
    );

    out.push_str(
        "## How a function task is judged\n\nA solution defines the function `entry_point` \
         (the prompt holds its imports, signature and docstring). Each row of `test_cases` \
         calls it with `args` (a Python list literal of positional arguments) and `kwargs` \
         (a dict literal of keyword arguments); besides literals they may hold \
         `float('nan')`, `float('inf')`, `iter([...])`, `set()`, `frozenset(...)`, a builtin \
         passed by name (`abs`, `sorted`, ...) and `operator.NAME`. The case expects either \
         the value `expected_json` (tagged with its exact type: `{\"t\": \"int\", \"v\": \"3\"}`; \
         `expected_repr` is its `repr`, for reading) or an exception whose type is \
         `expected_exception`. freshbench's harness (`execute --run`) runs each case in a \
         sandboxed process and compares values structurally: exact types (`1`, `1.0` and \
         `True` differ; a tuple is not a list), floats within `math.isclose(rel_tol=1e-9, \
         abs_tol=1e-12)` with NaN equal to NaN, sets and dicts in any order, a returned \
         iterator by its first 1000 items.\n\n",
    );
    if completion.is_some() {
        completion_judging(&mut out, manifest);
    }
    if assertion.is_some() {
        assertion_judging(&mut out, manifest);
    }
    if completion.is_some() || assertion.is_some() {
        repository_files(&mut out, manifest);
    }
    if let Some((path, e)) = manifest
        .exports
        .iter()
        .find(|(_, e)| e.format == "humaneval")
    {
        let _ = writeln!(
            out,
            "## HumanEval-shaped export\n\n`{}` has one JSON object per line with HumanEval's \
             fields: `task_id` (`freshbench/` and the task's id), `prompt`, `entry_point`, \
             `canonical_solution` (what completes the prompt: the reference solution after the \
             prompt, or the whole solution when the prompt's docstring was synthesized, so that \
             `prompt + canonical_solution` always runs) and `test`, which defines \
             `check(candidate)` asserting every case with the comparison rules above. Run it as \
             HumanEval harnesses do: `exec(prompt + completion + \"\\n\" + test)`, then \
             `check(ENTRY_POINT)`, under a harness that brings its own time limit and \
             isolation. It has no config in the header (the `datasets` library reads every \
             config of a folder with one builder, Parquet here); load it with \
             `load_dataset(\"json\", data_files=\"PATH/{}\", split=\"train\")`, or read \
             it line by line.\n\nThe asserts approximate freshbench's judging, they do not replace \
             it: `check` runs in the candidate's own process and namespace (a candidate can \
             patch what it uses or exit early), each returned iterator gets its own budget of \
             1000 items, and float elements of sets are paired greedily. Scores to compare with \
             freshbench's are those of its own harness. {} tasks, {} cases exported; {} cases \
             left out (no readable expected value, or arguments on several lines){}.\n",
            cell(path),
            cell(path),
            e.tasks,
            e.cases,
            e.cases_left_out,
            if e.tasks_left_out.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} tasks not exported for lack of any usable case",
                    e.tasks_left_out.len()
                )
            }
        );
    }

    out.push_str("## Sources\n\n| repository | version | license | published | tasks | url |\n|---|---|---|---|---|---|\n");
    for src in &manifest.sources {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            cell(&src.name),
            cell(src.version.as_deref().unwrap_or("")),
            cell(src.license.as_deref().unwrap_or("")),
            cell(
                src.published_at
                    .as_deref()
                    .map_or("", |p| p.get(..10).unwrap_or(p))
            ),
            src.tasks,
            cell(src.url.as_deref().unwrap_or("")),
        );
    }
    out.push('\n');

    out.push_str("## Licenses\n\n");
    let _ = writeln!(
        out,
        "Every task copies code from its source repository (the prompt, the reference \
         solution), so it keeps that repository's license: the table above names each \
         source, its version and its license, and `repos` and `manifest.json` hold the same. \
         Only repositories whose license (an SPDX expression, as the crawl recognised it) is \
         in the allow-list are published: {} ({}). An `OR` expression is allowed when one \
         alternative is, an `AND` when all parts are; a repository without a recognised \
         license is never published.\n",
        manifest
            .license_policy
            .allowed
            .iter()
            .map(|l| format!("`{}`", cell(l)))
            .collect::<Vec<_>>()
            .join(", "),
        if manifest.license_policy.source == "default" {
            "freshbench's default: permissive licenses only. MPL-2.0 is left out because its \
             copyleft applies per file, and every task is an excerpt of a file; BSD-4-Clause \
             and Apache-1.1 for their advertising clauses; the GPL family for its copyleft"
        } else {
            "given for this snapshot"
        }
    );
    if manifest.excluded.is_empty() {
        out.push_str("No repository was left out for its license.\n\n");
    } else {
        out.push_str(
            "Left out for their license (their tasks can still be made and evaluated locally: \
             run the freshbench pipeline on these sources in your own dataset directory, where \
             nothing is redistributed):\n\n| repository | version | license | valid tasks left out | why |\n|---|---|---|---|---|\n",
        );
        for e in &manifest.excluded {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                cell(e.name.as_deref().unwrap_or(&e.repo_id)),
                cell(e.version.as_deref().unwrap_or("")),
                cell(e.license.as_deref().unwrap_or("none")),
                e.tasks_left_out,
                cell(&e.reason)
            );
        }
        out.push('\n');
    }

    let _ = writeln!(
        out,
        "## Verifying the files\n\n`manifest.json` records the sha256 and size of every other \
         file of this folder and the row count of every table. With freshbench:\n\n```\npublish \
         --verify {name}-{date}\n```\n\nexits 0 when everything matches and 1 naming each file \
         that differs. Without it:\n\n```python\nimport hashlib, json, pathlib\n\nroot = \
         pathlib.Path(\"{name}-{date}\")\nmanifest = json.loads((root / \
         \"manifest.json\").read_text())\nbad = [p for p, f in manifest[\"files\"].items()\n       \
         if hashlib.sha256((root / p).read_bytes()).hexdigest() != f[\"sha256\"]]\nprint(bad \
         or \"all files match\")\n```\n",
        name = manifest.name,
        date = manifest.date
    );

    out.push_str("## Columns\n");
    let docs = schemas::describe::all_tables();
    for (name, t) in &manifest.tables {
        let Some(doc) = docs.iter().find(|d| d.name == name) else {
            continue;
        };
        let _ = writeln!(
            out,
            "\n### `{name}`\n\nFile `{}`, written by freshbench's `{}` stage. {}\n",
            cell(&t.path),
            doc.writer,
            doc.doc
        );
        out.push_str("| column | type | null | meaning |\n|---|---|---|---|\n");
        for c in &doc.columns {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} |",
                c.name,
                cell(&type_name(&c.data_type)),
                if c.nullable { "yes" } else { "" },
                cell(&c.doc)
            );
        }
    }
    out
}
