-- leaderboard: one row per run with its headline figures.
--   model             the model spec of its candidates (several, comma-separated, if mixed)
--   tasks             valid tasks (valid_tasks) it has executions for
--   samples, passes   executed samples of those tasks, and how many passed (samples the
--                     harness could not judge, status `infra`, are neither)
--   pass_at_1         mean over those tasks of passes / samples
--   scored_pass_at_1, ci_low, ci_high
--                     pass@1 and its 95% bootstrap interval from `scores` (breakdown
--                     'overall', k = 1) when score has run; null otherwise
-- A run appears as soon as it has candidates, executions or scores. (A view has no order:
-- `SELECT * FROM leaderboard ORDER BY run`.)
WITH runs AS (
    SELECT run FROM candidates
    UNION
    SELECT run FROM executions
    UNION
    SELECT run FROM scores
),
models AS (
    SELECT run, string_agg(DISTINCT model, ', ' ORDER BY model) AS model
    FROM candidates
    GROUP BY run
),
per_task AS (
    SELECT
        e.run,
        e.task_id,
        count(*) AS samples,
        sum(CASE WHEN e.status = 'pass' THEN 1 ELSE 0 END) AS passes
    FROM executions e
    JOIN valid_tasks v ON v.task_id = e.task_id
    WHERE e.status <> 'infra'
    GROUP BY e.run, e.task_id
),
per_run AS (
    SELECT
        run,
        count(*) AS tasks,
        sum(samples) AS samples,
        sum(passes) AS passes,
        avg(CAST(passes AS DOUBLE) / samples) AS pass_at_1
    FROM per_task
    GROUP BY run
),
overall AS (
    SELECT run, pass_at_k, ci_low, ci_high
    FROM scores
    WHERE breakdown = 'overall' AND k = 1
)
SELECT
    r.run,
    m.model,
    coalesce(p.tasks, 0) AS tasks,
    coalesce(p.samples, 0) AS samples,
    p.pass_at_1,
    coalesce(p.passes, 0) AS passes,
    o.pass_at_k AS scored_pass_at_1,
    o.ci_low,
    o.ci_high
FROM runs r
LEFT JOIN models m ON m.run = r.run
LEFT JOIN per_run p ON p.run = r.run
LEFT JOIN overall o ON o.run = r.run
