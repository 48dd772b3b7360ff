-- freshness: per repository, how much of its code is newer than the cutoff, by code age
-- (each function dated against the repository's versions before the cutoff, not by its
-- release), and the valid tasks made from such code, by family.
--   functions          functions of the repository (resolve)
--   fresh_functions    of them, whose code is newer than the cutoff (`after_cutoff`)
--   dated_functions    of them, with a code date known from the repository's history
--                      (`release_history`, `git_history`) rather than its release's date
--   function_tasks, fresh_function_tasks          valid function tasks, and of fresh code
--   completion_tasks, fresh_completion_tasks      the same for completion tasks
--   assertion_tasks, fresh_assertion_tasks        the same for assertion tasks
WITH fns AS (
    SELECT
        repo_id,
        count(*) AS functions,
        sum(CASE WHEN after_cutoff THEN 1 ELSE 0 END) AS fresh_functions,
        sum(CASE WHEN code_date_source IN ('release_history', 'git_history') THEN 1 ELSE 0 END)
            AS dated_functions
    FROM functions
    GROUP BY repo_id
),
per_family AS (
    SELECT
        repo_id,
        sum(CASE WHEN family = 'function' THEN 1 ELSE 0 END) AS function_tasks,
        sum(CASE WHEN family = 'function' AND after_cutoff THEN 1 ELSE 0 END)
            AS fresh_function_tasks,
        sum(CASE WHEN family = 'completion' THEN 1 ELSE 0 END) AS completion_tasks,
        sum(CASE WHEN family = 'completion' AND after_cutoff THEN 1 ELSE 0 END)
            AS fresh_completion_tasks,
        sum(CASE WHEN family = 'assertion' THEN 1 ELSE 0 END) AS assertion_tasks,
        sum(CASE WHEN family = 'assertion' AND after_cutoff THEN 1 ELSE 0 END)
            AS fresh_assertion_tasks
    FROM tasks
    WHERE valid
    GROUP BY repo_id
)
SELECT
    r.name AS repo,
    r.version,
    coalesce(f.functions, 0) AS functions,
    coalesce(f.fresh_functions, 0) AS fresh_functions,
    coalesce(f.dated_functions, 0) AS dated_functions,
    coalesce(p.function_tasks, 0) AS function_tasks,
    coalesce(p.fresh_function_tasks, 0) AS fresh_function_tasks,
    coalesce(p.completion_tasks, 0) AS completion_tasks,
    coalesce(p.fresh_completion_tasks, 0) AS fresh_completion_tasks,
    coalesce(p.assertion_tasks, 0) AS assertion_tasks,
    coalesce(p.fresh_assertion_tasks, 0) AS fresh_assertion_tasks
FROM repos r
LEFT JOIN fns f ON f.repo_id = r.repo_id
LEFT JOIN per_family p ON p.repo_id = r.repo_id
WHERE r.status = 'ok'
