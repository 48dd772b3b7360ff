//! Tables of a run (`DIR/runs/<run>/`): a model's answers, their executions and scores.

use crate::enums::{AnswerStatus, Breakdown, ExecStatus, Family, Fingerprint, Isolation};
use crate::table;

table! {
    /// One row per answer of a model to a task (per sample).
    pub struct Candidate in "candidates" written_by "solve" {
        /// The run's name.
        pub run: String,
        /// The task.
        pub task_id: String,
        /// The task's family.
        pub family: Family,
        /// Sample index, from 0.
        pub sample: i32,
        /// The model spec (`oracle`, `openai:MODEL@URL`, `command:PROG`).
        pub model: String,
        /// sha256 of the exact prompt sent.
        pub prompt_hash: String,
        /// The cleaned answer (code).
        pub answer: Option<String>,
        /// What the model returned, before cleaning.
        pub raw: Option<String>,
        /// `error`: the model could not be asked (a rerun asks again).
        pub status: AnswerStatus,
        /// Why it failed.
        pub error: Option<String>,
        /// Prompt tokens, when reported.
        pub tokens_in: Option<i64>,
        /// Completion tokens, when reported.
        pub tokens_out: Option<i64>,
        /// Milliseconds the answer took (records when it ran).
        pub latency_ms: f64,
        /// What the answer cost, in the currency of solve's price table (`--price-in`,
        /// `--price-out` per million tokens, or `--prices FILE`): null when no price was
        /// given or the endpoint reported no token counts; 0 for reference solvers.
        pub cost: Option<f64>,
        /// Hash of what produced the answer: the model spec, the sampling options, the task's
        /// prompt, the sample and solve's build id (32 hex digits); a rerun keeps an `ok`
        /// answer only when it still matches.
        pub input_hash: String,
    }
}

table! {
    /// One row per candidate run against its task.
    pub struct Execution in "executions" written_by "execute" {
        /// The run's name.
        pub run: String,
        /// The task.
        pub task_id: String,
        /// Sample index.
        pub sample: i32,
        /// How the candidate did (`infra`: the harness failed, not the candidate; left out of pass@k and run again by a rerun).
        pub status: ExecStatus,
        /// Cases passed.
        pub cases_passed: i32,
        /// Cases run.
        pub cases_total: i32,
        /// Seconds (records when it ran).
        pub seconds: f64,
        /// Failure diagnosis; null on a pass and on `infra`.
        pub fingerprint: Option<Fingerprint>,
        /// The first failure's message, capped.
        pub detail: Option<String>,
        /// The isolation the run had.
        pub isolation: Isolation,
        /// Function tasks: seconds the reference solution took on its slowest case, measured
        /// on this machine in the same run (null for the other families, judged by their
        /// repository's tests, and when the reference could not be timed; records when it
        /// ran, as `seconds` does).
        pub reference_seconds: Option<f64>,
        /// Function tasks: the wall-clock limit of that case, `max(time_floor_seconds,
        /// time_factor * reference_seconds)`; every case gets its own limit by the same rule.
        pub time_limit_seconds: Option<f64>,
        /// The factor of the time-limit rule (`execute --time-factor`).
        pub time_factor: Option<f64>,
        /// The floor of the time-limit rule, in seconds (`execute --time-floor`).
        pub time_floor_seconds: Option<f64>,
        /// Hash of what produced the row: the candidate's answer, the task and its cases, the
        /// judge's options and execute's build id (32 hex digits); a rerun keeps the row only
        /// when it matches (and never keeps an `infra` row).
        pub input_hash: String,
    }
}

table! {
    /// One row per run, breakdown and k: pass@k with its bootstrap confidence interval.
    pub struct Score in "scores" written_by "score" {
        /// The run's name.
        pub run: String,
        /// How the tasks are grouped.
        pub breakdown: Breakdown,
        /// The group within the breakdown (`function`, `after_cutoff`, ...); `all` for overall.
        pub group_key: String,
        /// k of pass@k.
        pub k: i32,
        /// Unbiased pass@k estimate.
        pub pass_at_k: f64,
        /// Lower end of the 95% bootstrap interval.
        pub ci_low: f64,
        /// Upper end of the 95% bootstrap interval.
        pub ci_high: f64,
        /// Tasks in the group.
        pub tasks: i64,
    }
}
