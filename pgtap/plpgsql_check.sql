-- plpgsql_check over every PL/pgSQL function of the project's schemas. Any error fails the run
-- (warnings are printed, not fatal). A trigger function is checked once for every table a trigger
-- runs it on (plpgsql_check needs the table to know NEW and OLD); one that no trigger uses is an
-- error of its own, since nothing could check it.
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS plpgsql_check;

CREATE TEMP TABLE checked AS
SELECT p.oid AS function, t.tgrelid AS on_table
  FROM pg_proc AS p
  JOIN pg_namespace AS n ON n.oid = p.pronamespace
  JOIN pg_language AS l ON l.oid = p.prolang
  LEFT JOIN (SELECT DISTINCT tgfoid, tgrelid FROM pg_trigger WHERE NOT tgisinternal) AS t
         ON t.tgfoid = p.oid AND p.prorettype = 'trigger'::regtype
 WHERE l.lanname = 'plpgsql'
   AND n.oid = ANY (tests.project_schemas());

CREATE TEMP TABLE check_report AS
SELECT c.function::regprocedure AS function, c.on_table::regclass AS on_table, r.level, r.message, r.lineno, r.statement
  FROM checked AS c
 CROSS JOIN LATERAL plpgsql_check_function_tb(c.function, coalesce(c.on_table, 0), fatal_errors => false) AS r
 WHERE c.on_table IS NOT NULL OR (SELECT prorettype FROM pg_proc WHERE oid = c.function) <> 'trigger'::regtype
UNION ALL
SELECT c.function::regprocedure, NULL, 'error', 'a trigger function no trigger uses cannot be checked', NULL, NULL
  FROM checked AS c
 WHERE c.on_table IS NULL AND (SELECT prorettype FROM pg_proc WHERE oid = c.function) = 'trigger'::regtype;

SELECT function, on_table, level, lineno, statement, message FROM check_report ORDER BY level, function::text, lineno;

DO $$
DECLARE
    v_errors integer := (SELECT count(*) FROM check_report WHERE level = 'error');
    v_checked integer := (SELECT count(DISTINCT function) FROM checked);
    v_triggers integer := (SELECT count(*) FROM checked WHERE on_table IS NOT NULL);
BEGIN
    IF v_errors > 0 THEN
        RAISE EXCEPTION 'plpgsql_check: % error(s)', v_errors;
    END IF;
    RAISE NOTICE 'plpgsql_check: % functions (% trigger function and table pairs), no errors', v_checked, v_triggers;
END
$$;
