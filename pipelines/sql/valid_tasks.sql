-- valid_tasks: the tasks that count, as score counts them: validated by execute, and valid
-- in every validation row of the task. One row per task, with its family.
-- optional: validations
SELECT task_id, min(family) AS family
FROM validations
GROUP BY task_id
HAVING bool_and(valid)
