-- tasks: one row per task of every family, with its repository's name, whether execute
-- found it valid (in every validation row; null when it was not validated), how many
-- cases judge it, and whether its code is newer than the cutoff (`after_cutoff`, by the
-- code date of what it is made from), and its repository's id.
--
-- One branch per family: a branch is left out when its family's table is absent, so the
-- view holds the function tasks now and grows as mask writes completion and assertion
-- tasks. `validations` is read optionally (an empty stand-in when execute has not run).
-- optional: validations
SELECT
    t.task_id,
    'function' AS family,
    r.name AS repo,
    t.class,
    t.entry_point,
    t.status,
    v.valid,
    t.cases,
    t.after_cutoff,
    t.repo_id
FROM function_tasks t
LEFT JOIN repos r ON r.repo_id = t.repo_id
LEFT JOIN (SELECT task_id, bool_and(valid) AS valid FROM validations GROUP BY task_id) v
    ON v.task_id = t.task_id
UNION ALL -- branch
-- Completion tasks: no class of their own (the masked span is repo-dependent code), no
-- entry point; judged by the repository's own tests that execute the span.
SELECT
    t.task_id,
    'completion' AS family,
    r.name AS repo,
    CAST(NULL AS VARCHAR) AS class,
    CAST(NULL AS VARCHAR) AS entry_point,
    'ok' AS status,
    v.valid,
    CAST(cardinality(t.tests) AS INT) AS cases,
    t.after_cutoff,
    t.repo_id
FROM completion_tasks t
LEFT JOIN repos r ON r.repo_id = t.repo_id
LEFT JOIN (SELECT task_id, bool_and(valid) AS valid FROM validations GROUP BY task_id) v
    ON v.task_id = t.task_id
UNION ALL -- branch
-- Assertion tasks: judged on the original program and on each mutated variant.
SELECT
    t.task_id,
    'assertion' AS family,
    r.name AS repo,
    CAST(NULL AS VARCHAR) AS class,
    CAST(NULL AS VARCHAR) AS entry_point,
    'ok' AS status,
    v.valid,
    CAST(1 + cardinality(t.variants) AS INT) AS cases,
    t.after_cutoff,
    t.repo_id
FROM assertion_tasks t
LEFT JOIN repos r ON r.repo_id = t.repo_id
LEFT JOIN (SELECT task_id, bool_and(valid) AS valid FROM validations GROUP BY task_id) v
    ON v.task_id = t.task_id
