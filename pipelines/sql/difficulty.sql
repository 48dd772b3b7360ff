-- difficulty: pass@1 by difficulty bucket, per run.
--   source = 'scores'      what score wrote (breakdown 'difficulty', k = 1), with the 95%
--                          bootstrap interval;
--   source = 'executions'  for a run score has not scored: pass@1 (mean over the bucket's
--                          valid tasks of passed / executed samples, `infra` samples left
--                          out) computed here, no
--                          interval, in the buckets score would give (stages/score,
--                          difficulty.rs): tertiles `low`, `medium`, `high` of the mean of
--                          each valid task's normalized average rank in ESV, MCL and DFI
--                          among the valid tasks whose slice has status `ok` (`unknown`
--                          without one: no slice, or one of status `timeout`, `too_large`
--                          or `untraceable`, whose figures are null; score itself places
--                          such function tasks by the proxy below, named `(proxy)`: this
--                          fallback keeps them `unknown`); without a `slices`
--                          table, of the
--                          function tasks' branch arcs and non-blank lines of the reference
--                          solution, named `low (proxy)` ... (`unknown (proxy)` for other
--                          families).
-- optional: slices
SELECT
    run,
    group_key AS bucket,
    tasks,
    pass_at_k AS pass_at_1,
    ci_low,
    ci_high,
    'scores' AS source
FROM scores
WHERE breakdown = 'difficulty' AND k = 1
UNION ALL -- branch
-- From executions, bucketed by the slices (when the dataset has them). Only a slice of
-- status 'ok' measures its task (the others have null figures): the rest are 'unknown'.
WITH measured AS (
    SELECT
        v.task_id,
        CAST(s.esv AS DOUBLE) AS m1,
        CAST(s.mcl AS DOUBLE) AS m2,
        CAST(s.dfi AS DOUBLE) AS m3
    FROM valid_tasks v
    JOIN slices s ON s.task_id = v.task_id
    WHERE s.status = 'ok'
        AND s.esv IS NOT NULL AND s.mcl IS NOT NULL AND s.dfi IS NOT NULL
),
-- Per measure: i, the 0-based first position of the value's ties; c, how many tie.
positions AS (
    SELECT
        task_id,
        count(*) OVER () AS n,
        CAST(rank() OVER (ORDER BY m1) AS BIGINT) - 1 AS i1, count(*) OVER (PARTITION BY m1) AS c1,
        CAST(rank() OVER (ORDER BY m2) AS BIGINT) - 1 AS i2, count(*) OVER (PARTITION BY m2) AS c2,
        CAST(rank() OVER (ORDER BY m3) AS BIGINT) - 1 AS i3, count(*) OVER (PARTITION BY m3) AS c3
    FROM measured
),
-- The normalized average rank of positions i..i+c-1 is (2i + c - 1) / 2 / (n - 1).
combined AS (
    SELECT
        task_id,
        n,
        CASE WHEN n = 1 THEN 0.5 ELSE (
            CAST(2 * i1 + c1 - 1 AS DOUBLE) / 2.0 / CAST(n - 1 AS DOUBLE)
            + CAST(2 * i2 + c2 - 1 AS DOUBLE) / 2.0 / CAST(n - 1 AS DOUBLE)
            + CAST(2 * i3 + c3 - 1 AS DOUBLE) / 2.0 / CAST(n - 1 AS DOUBLE)
        ) / 3.0 END AS score
    FROM positions
),
-- The tertile: 3 * (tasks with a strictly smaller score) / n, at most 2.
buckets AS (
    SELECT
        task_id,
        CASE least(2, 3 * (CAST(rank() OVER (ORDER BY score) AS BIGINT) - 1) / n)
            WHEN 0 THEN 'low' WHEN 1 THEN 'medium' ELSE 'high'
        END AS bucket
    FROM combined
),
per_task AS (
    SELECT
        e.run,
        e.task_id,
        avg(CASE WHEN e.status = 'pass' THEN 1.0 ELSE 0.0 END) AS rate
    FROM executions e
    JOIN valid_tasks v ON v.task_id = e.task_id
    WHERE e.run NOT IN (SELECT run FROM scores WHERE breakdown = 'difficulty' AND k = 1)
        AND e.status <> 'infra'
    GROUP BY e.run, e.task_id
)
SELECT
    p.run,
    coalesce(b.bucket, 'unknown') AS bucket,
    count(*) AS tasks,
    avg(p.rate) AS pass_at_1,
    CAST(NULL AS DOUBLE) AS ci_low,
    CAST(NULL AS DOUBLE) AS ci_high,
    'executions' AS source
FROM per_task p
LEFT JOIN buckets b ON b.task_id = p.task_id
-- Slices of any status: a table whose every slice failed still makes the tasks 'unknown'
-- (as score does), not proxy-bucketed.
CROSS JOIN (SELECT count(*) AS n FROM slices) sliced
WHERE sliced.n > 0
GROUP BY p.run, coalesce(b.bucket, 'unknown')
UNION ALL -- branch
-- From executions, bucketed by the proxy (when the dataset has no slices).
WITH lines AS (
    SELECT task_id, unnest(string_to_array(canonical_solution, chr(10))) AS line
    FROM function_tasks
),
-- Non-blank lines of the reference solution.
code_lines AS (
    SELECT task_id, count(*) AS lines
    FROM lines
    WHERE regexp_like(line, '\S')
    GROUP BY task_id
),
measured AS (
    SELECT
        v.task_id,
        CAST(f.branches_total AS DOUBLE) AS m1,
        CAST(coalesce(l.lines, 0) AS DOUBLE) AS m2
    FROM valid_tasks v
    JOIN function_tasks f ON f.task_id = v.task_id
    LEFT JOIN code_lines l ON l.task_id = v.task_id
),
positions AS (
    SELECT
        task_id,
        count(*) OVER () AS n,
        CAST(rank() OVER (ORDER BY m1) AS BIGINT) - 1 AS i1, count(*) OVER (PARTITION BY m1) AS c1,
        CAST(rank() OVER (ORDER BY m2) AS BIGINT) - 1 AS i2, count(*) OVER (PARTITION BY m2) AS c2
    FROM measured
),
combined AS (
    SELECT
        task_id,
        n,
        CASE WHEN n = 1 THEN 0.5 ELSE (
            CAST(2 * i1 + c1 - 1 AS DOUBLE) / 2.0 / CAST(n - 1 AS DOUBLE)
            + CAST(2 * i2 + c2 - 1 AS DOUBLE) / 2.0 / CAST(n - 1 AS DOUBLE)
        ) / 2.0 END AS score
    FROM positions
),
buckets AS (
    SELECT
        task_id,
        CASE least(2, 3 * (CAST(rank() OVER (ORDER BY score) AS BIGINT) - 1) / n)
            WHEN 0 THEN 'low (proxy)' WHEN 1 THEN 'medium (proxy)' ELSE 'high (proxy)'
        END AS bucket
    FROM combined
),
per_task AS (
    SELECT
        e.run,
        e.task_id,
        avg(CASE WHEN e.status = 'pass' THEN 1.0 ELSE 0.0 END) AS rate
    FROM executions e
    JOIN valid_tasks v ON v.task_id = e.task_id
    WHERE e.run NOT IN (SELECT run FROM scores WHERE breakdown = 'difficulty' AND k = 1)
        AND e.status <> 'infra'
    GROUP BY e.run, e.task_id
)
SELECT
    p.run,
    coalesce(b.bucket, 'unknown (proxy)') AS bucket,
    count(*) AS tasks,
    avg(p.rate) AS pass_at_1,
    CAST(NULL AS DOUBLE) AS ci_low,
    CAST(NULL AS DOUBLE) AS ci_high,
    'executions' AS source
FROM per_task p
LEFT JOIN buckets b ON b.task_id = p.task_id
CROSS JOIN (SELECT count(*) AS n FROM slices) sliced
WHERE sliced.n = 0
GROUP BY p.run, coalesce(b.bucket, 'unknown (proxy)')
