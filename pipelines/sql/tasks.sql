-- tasks: one row per task of every family, with its repository's name, whether execute
-- found it valid (in every validation row; null when it was not validated), how many
-- cases judge it, and whether its code is newer than the cutoff (`after_cutoff`, by the
-- code date of what it is made from), and its repository's id.
--   family       function, completion or assertion
--   class        function tasks: the function's class; null otherwise
--   level        completion tasks: the syntax level of the masked span (`span_kind`:
--                expression, statement, block, function); null otherwise
--   path         the file the task is made from (function tasks: their function's file,
--                null when the dataset has no `functions` table; assertion tasks: the test
--                file)
--   cases        function tasks: test cases; completion tasks: judge tests; assertion
--                tasks: 1 (the one assertion of their test)
--   code_date    when the code it is made from was first published, as far as is known
--   form         assertion tasks: `value` (predict the value) or `verify` (does the shown
--                assertion hold?); null otherwise
--   kind         assertion tasks: what the subject is compared with (equal, approx,
--                truth, raises); null otherwise
--   mutated      assertion tasks: posed on a mutated variant of the program (false: on
--                the original); null otherwise
--   group_id     assertion tasks: the assertion, shared by its tasks on every program and
--                in both forms; null otherwise
--
-- One branch per family: a branch is left out when its family's table is absent, so the
-- view holds the function tasks of a dataset without completion or assertion tasks and
-- grows as mask writes them. `validations` and `functions` are read optionally (an empty
-- stand-in when absent).
-- optional: validations, functions
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
    t.repo_id,
    CAST(NULL AS VARCHAR) AS level,
    f.path,
    t.code_date,
    CAST(NULL AS VARCHAR) AS form,
    CAST(NULL AS VARCHAR) AS kind,
    CAST(NULL AS BOOLEAN) AS mutated,
    CAST(NULL AS VARCHAR) AS group_id
FROM function_tasks t
LEFT JOIN repos r ON r.repo_id = t.repo_id
LEFT JOIN (SELECT task_id, bool_and(valid) AS valid FROM validations GROUP BY task_id) v
    ON v.task_id = t.task_id
LEFT JOIN (SELECT function_id, min(path) AS path FROM functions GROUP BY function_id) f
    ON f.function_id = t.function_id
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
    t.repo_id,
    t.span_kind AS level,
    t.path,
    t.code_date,
    CAST(NULL AS VARCHAR) AS form,
    CAST(NULL AS VARCHAR) AS kind,
    CAST(NULL AS BOOLEAN) AS mutated,
    CAST(NULL AS VARCHAR) AS group_id
FROM completion_tasks t
LEFT JOIN repos r ON r.repo_id = t.repo_id
LEFT JOIN (SELECT task_id, bool_and(valid) AS valid FROM validations GROUP BY task_id) v
    ON v.task_id = t.task_id
UNION ALL -- branch
-- Assertion tasks: one row per assertion, program (the original or a mutated variant) and
-- form; each judged by the one assertion of its test, on its program. `path` is the test
-- file.
SELECT
    t.task_id,
    'assertion' AS family,
    r.name AS repo,
    CAST(NULL AS VARCHAR) AS class,
    CAST(NULL AS VARCHAR) AS entry_point,
    'ok' AS status,
    v.valid,
    CAST(1 AS INT) AS cases,
    t.after_cutoff,
    t.repo_id,
    CAST(NULL AS VARCHAR) AS level,
    t.path,
    t.code_date,
    t.form,
    t.kind,
    t.mutated,
    t.group_id
FROM assertion_tasks t
LEFT JOIN repos r ON r.repo_id = t.repo_id
LEFT JOIN (SELECT task_id, bool_and(valid) AS valid FROM validations GROUP BY task_id) v
    ON v.task_id = t.task_id
