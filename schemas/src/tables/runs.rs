//! Tables of a run (`DIR/runs/<run>/`): a model's answers, their executions and scores.

use crate::table;

table! {
    /// One row per answer of a model to a task (per sample).
    pub struct Candidate in "candidates" written_by "solve" {
        /// The run's name.
        pub run: String,
        /// The task.
        pub task_id: String,
        /// `function`, `completion` or `assertion`.
        pub family: String,
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
        /// `ok` or `error` (the model could not be asked).
        pub status: String,
        /// Why it failed.
        pub error: Option<String>,
        /// Prompt tokens, when reported.
        pub tokens_in: Option<i64>,
        /// Completion tokens, when reported.
        pub tokens_out: Option<i64>,
        /// Milliseconds the answer took (records when it ran).
        pub latency_ms: f64,
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
        /// `pass`, `fail`, `error`, `timeout`, `memory`, `syntax` or `sandbox_violation`.
        pub status: String,
        /// Cases passed.
        pub cases_passed: i32,
        /// Cases run.
        pub cases_total: i32,
        /// Seconds (records when it ran).
        pub seconds: f64,
        /// Failure diagnosis: `syntax`, `runtime`, `logic`, or null on a pass.
        pub fingerprint: Option<String>,
        /// The first failure's message, capped.
        pub detail: Option<String>,
        /// The isolation the run had.
        pub isolation: String,
    }
}

table! {
    /// One row per run, breakdown and k: pass@k with its bootstrap confidence interval.
    pub struct Score in "scores" written_by "score" {
        /// The run's name.
        pub run: String,
        /// `overall`, `family`, `class`, `repo`, `difficulty` or `window`.
        pub breakdown: String,
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
