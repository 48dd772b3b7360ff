//! The task-version rule of function tasks, which publish's card states
//! (`publish::version::TASK_ID_RULES`): a task's id is the hash of `function_id`, `prompt`
//! and `canonical_solution`, in that order, and of nothing else: not the options (nor
//! `config_hash`, which holds freshbench's build), the function's class or code date, the
//! status or its reason. The rows here are those made before any search (no Python runs);
//! a searched task's id is set from the same three columns once its prompt is written.

use execution::Limits;
use schemas::{examples, FunctionClass, FunctionTask};
use synthesize_tests::search::Budget;
use synthesize_tests::synth::{self, Options};

fn options() -> Options {
    Options {
        budget: Budget::default(),
        max_cases: 12,
        mutants: 8,
        min_coverage: 1.0,
        min_mutation_score: 0.5,
        limits: Limits::default(),
        python: "python3".into(),
        seed: 0,
    }
}

/// The rule, from the row's own columns.
fn by_rule(t: &FunctionTask) -> String {
    schemas::id::content_id(&[
        t.function_id.as_bytes(),
        t.prompt.as_bytes(),
        t.canonical_solution.as_bytes(),
    ])
}

#[test]
fn the_id_is_the_hash_of_the_rules_columns_and_of_nothing_else() {
    let f = examples::function("f-1", "r-1");
    let opts = options();
    let base = synth::rejected(&f, FunctionClass::SelfContained, &opts, "too short".into()).task;
    assert_eq!(base.task_id, by_rule(&base));

    // Another quarter: other options (another config hash), another class, a code date,
    // another reason, the infra status.
    let mut later = f.clone();
    later.code_date = schemas::Timestamp::parse("2027-02-01");
    later.after_cutoff = Some(true);
    later.code_hash = "another hash".into();
    let other_opts = Options {
        max_cases: 3,
        mutants: 0,
        min_coverage: 0.5,
        budget: Budget {
            calls: 7,
            ..Budget::default()
        },
        seed: 3,
        ..options()
    };
    let rows = [
        synth::rejected(
            &later,
            FunctionClass::WeaklySelfContained,
            &other_opts,
            "no parameters".into(),
        )
        .task,
        synth::infra(&later, FunctionClass::SelfContained, &opts, "no worker").task,
    ];
    for t in &rows {
        assert_ne!(
            (&t.config_hash, &t.class, &t.reason, &t.status),
            (&base.config_hash, &base.class, &base.reason, &base.status)
        );
        assert_eq!(t.task_id, base.task_id, "{t:?}");
        assert_eq!(t.task_id, by_rule(t));
    }
    assert_ne!(rows[0].config_hash, base.config_hash);

    // Another function (another repository, path, qualname or source): another id.
    let other = synth::rejected(
        &examples::function("f-2", "r-1"),
        FunctionClass::SelfContained,
        &opts,
        "too short".into(),
    )
    .task;
    assert_ne!(other.task_id, base.task_id);
    assert_eq!(other.task_id, by_rule(&other));
}
