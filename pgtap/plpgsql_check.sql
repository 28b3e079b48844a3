-- plpgsql_check over every PL/pgSQL function of the project's schemas. Any error fails the run
-- (warnings are printed, not fatal).
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS plpgsql_check;

CREATE TEMP TABLE check_report AS
SELECT p.oid::regprocedure AS function, r.level, r.message, r.lineno, r.statement
  FROM pg_proc AS p
  JOIN pg_namespace AS n ON n.oid = p.pronamespace
  JOIN pg_language AS l ON l.oid = p.prolang
 CROSS JOIN LATERAL plpgsql_check_function_tb(p.oid, fatal_errors => false) AS r
 WHERE l.lanname = 'plpgsql'
   AND n.oid = ANY (tests.project_schemas())
   AND p.prorettype <> 'trigger'::regtype;

SELECT function, level, lineno, statement, message FROM check_report ORDER BY level, function::text, lineno;

DO $$
DECLARE
    v_errors integer := (SELECT count(*) FROM check_report WHERE level = 'error');
    v_checked integer := (SELECT count(*) FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace
                           JOIN pg_language AS l ON l.oid = p.prolang
                          WHERE l.lanname = 'plpgsql' AND n.oid = ANY (tests.project_schemas()));
BEGIN
    IF v_errors > 0 THEN
        RAISE EXCEPTION 'plpgsql_check: % error(s)', v_errors;
    END IF;
    RAISE NOTICE 'plpgsql_check: % functions, no errors', v_checked;
END
$$;
