-- A request body as jsonb, refusing what PostgreSQL cannot hold as bad input, never a 500:
--   not JSON at all, or nested deeper than the parser allows  -> invalid_json
--   JSON whose strings or numbers jsonb cannot hold (\u0000, a lone surrogate, a number out of
--   every range)                                              -> invalid_body, field = the top-level
--                                                                member holding it
--   a key given twice in any object of the body               -> invalid_body (p_nested_error below
--                                                                the top level), field as
--                                                                app.json_first_repeated_key names it
-- A number out of every range is also one written with an exponent beyond ±20 (1e21, 5E-30): no
-- field takes such a value, and PostgreSQL writes numbers out in full, so 64 KiB of `1e130000` would
-- be gigabytes of text to every step that reads the body as text (app.json_exponent_beyond_range).
-- An array or a scalar body is returned as it is: there is no member to name, so nothing here refuses
-- it; the caller refuses its shape.
-- The body is read as jsonb at once; only when that fails is it read as `json` (syntax only), so that
-- syntax and content faults are told apart.
CREATE OR REPLACE FUNCTION app.json_body(p_body text, p_nested_error text DEFAULT 'invalid_body')
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_body jsonb;
    v_held boolean := true;
    v_out_of_range text;
    v_repeated record;
BEGIN
    IF p_body IS NULL THEN
        PERFORM app.refuse(422, 'invalid_json');
    END IF;
    BEGIN
        v_body := p_body::jsonb;
    EXCEPTION
        WHEN data_exception OR statement_too_complex OR program_limit_exceeded THEN
            v_held := false;
    END;
    IF NOT v_held THEN
        BEGIN
            PERFORM p_body::json;
        EXCEPTION
            WHEN data_exception OR statement_too_complex OR program_limit_exceeded THEN
                PERFORM app.refuse(422, 'invalid_json');
        END;
        PERFORM app.refuse(422, 'invalid_body', app.json_member_not_held(p_body));
    END IF;
    IF jsonb_typeof(v_body) <> 'object' THEN
        RETURN v_body;
    END IF;
    IF app.json_exponent_beyond_range(p_body) THEN
        v_out_of_range := app.json_member_with_exponent_beyond_range(p_body);
        IF v_out_of_range IS NOT NULL THEN
            PERFORM app.refuse(422, 'invalid_body', v_out_of_range);
        END IF;
    END IF;
    -- jsonb keeps one member per key: as many keys held as the text gives means none is given twice
    -- (the search naming the first repetition is only needed when they differ).
    IF app.json_keys_sent(p_body) <> app.json_keys_held(v_body) THEN
        SELECT * INTO v_repeated FROM app.json_first_repeated_key(p_body::json, v_body);
        IF v_repeated.field IS NOT NULL THEN
            PERFORM app.refuse(422, CASE WHEN v_repeated.depth = 0 THEN 'invalid_body' ELSE p_nested_error END, v_repeated.field);
        END IF;
    END IF;
    RETURN v_body;
END
$$;
REVOKE ALL ON FUNCTION app.json_body(text, text) FROM PUBLIC;

-- Whether a JSON text may hold a number written with an exponent beyond ±20: a digit, then e or E,
-- an optional sign, leading zeros, and 21 or more. Strings are not told apart from numbers here (a
-- cheap first look; app.json_member_with_exponent_beyond_range tells them apart).
CREATE OR REPLACE FUNCTION app.json_exponent_beyond_range(p_json text)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT p_json ~ '[0-9][eE][-+]?0*(2[1-9]|[3-9][0-9]|[1-9][0-9][0-9])';
$$;
REVOKE ALL ON FUNCTION app.json_exponent_beyond_range(text) FROM PUBLIC;

-- The first top-level member, in document order, of a JSON object text whose value holds a number
-- (not a string) written with an exponent beyond ±20, named as sent, or NULL. Its plain copy
-- (app.json_plain) is walked: there every quote is a string's own, so removing each `"…"` leaves
-- the numbers and the structure alone.
CREATE OR REPLACE FUNCTION app.json_member_with_exponent_beyond_range(p_json text)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT app.json_unplain('"' || m.key || '"')::jsonb #>> '{}'
      FROM json_each(app.json_plain(p_json)::json) WITH ORDINALITY AS m(key, value, n)
     WHERE app.json_exponent_beyond_range(regexp_replace(m.value::text, '"[^"]*"', '', 'g'))
     ORDER BY m.n
     LIMIT 1;
$$;
REVOKE ALL ON FUNCTION app.json_member_with_exponent_beyond_range(text) FROM PUBLIC;

-- A JSON text in which every quote is a string's own, for counting (never turned back): its plain
-- copy (app.json_plain) when it has a backslash, else the text itself, which has no escape to hide.
CREATE OR REPLACE FUNCTION app.json_quotes_delimiting(p_json text)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN strpos(p_json, '\') > 0 THEN app.json_plain(p_json) ELSE p_json END;
$$;
REVOKE ALL ON FUNCTION app.json_quotes_delimiting(text) FROM PUBLIC;

-- How many keys a JSON text gives, repeated ones included. In app.json_quotes_delimiting's copy a
-- key is a quote followed by white space and a colon. (A colon right after white space anywhere, strings included, sends
-- the count to the regular expression; otherwise every key's quote is right before its colon, a
-- plain substring count.)
CREATE OR REPLACE FUNCTION app.json_keys_sent(p_json text)
RETURNS integer
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_plain constant text := app.json_quotes_delimiting(p_json);
BEGIN
    IF strpos(v_plain, ' :') + strpos(v_plain, E'\t:') + strpos(v_plain, E'\n:') + strpos(v_plain, E'\r:') = 0 THEN
        RETURN (char_length(v_plain) - char_length(replace(v_plain, '":', ''))) / 2;
    END IF;
    RETURN regexp_count(v_plain, '"[ \t\n\r]*:');
END
$$;
REVOKE ALL ON FUNCTION app.json_keys_sent(text) FROM PUBLIC;

-- How many keys a jsonb value holds (one per key and object). jsonb writes each key `"key": `,
-- counted in app.json_quotes_delimiting's copy of that text.
CREATE OR REPLACE FUNCTION app.json_keys_held(p_value jsonb)
RETURNS integer
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_plain constant text := app.json_quotes_delimiting(p_value::text);
BEGIN
    RETURN (char_length(v_plain) - char_length(replace(v_plain, '": ', ''))) / 3;
END
$$;
REVOKE ALL ON FUNCTION app.json_keys_held(jsonb) FROM PUBLIC;

-- The position (from 1) of the first of these JSON texts in which an object gives a key twice; the
-- caller knows that one does. p_held: the same values as jsonb, in an array in the same order. By
-- bisection over runs of them: a run's keys as sent (its texts) against its keys held (its slice of
-- p_held, never parsed again). O(log n) tries, about the whole text once in all.
CREATE OR REPLACE FUNCTION app.json_first_repeating(p_values text[], p_held jsonb)
RETURNS integer
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_low integer := 1;
    v_high integer := cardinality(p_values);
    v_middle integer;
BEGIN
    WHILE v_low < v_high LOOP
        v_middle := (v_low + v_high) / 2;
        IF app.json_keys_sent(array_to_string(p_values[v_low:v_middle], ','))
           <> app.json_keys_held(jsonb_path_query_array(p_held, '$[$low to $high]',
                                                         jsonb_build_object('low', v_low - 1, 'high', v_middle - 1))) THEN
            v_high := v_middle;
        ELSE
            v_low := v_middle + 1;
        END IF;
    END LOOP;
    RETURN v_low;
END
$$;
REVOKE ALL ON FUNCTION app.json_first_repeating(text[], jsonb) FROM PUBLIC;

-- The first key, in byte order, that a JSON object gives twice, or NULL.
CREATE OR REPLACE FUNCTION app.json_own_repeated_key(p_object json)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT k
      FROM json_object_keys(CASE WHEN json_typeof(p_object) = 'object' THEN p_object END) AS k
     GROUP BY k
    HAVING count(*) > 1
     ORDER BY k COLLATE "C"
     LIMIT 1;
$$;
REVOKE ALL ON FUNCTION app.json_own_repeated_key(json) FROM PUBLIC;

-- The first object of a JSON object document, in document order, that gives a key twice, and its
-- first repeated key in byte order, named as a refusal's field: at the top level the key itself; in
-- an object that is a top-level member's value `<member>.<key>` (cancellation.penalty_percent_after);
-- in an object that is an element of a top-level array `<member>[<index>].<key>`
-- (blocked_periods[3].reason); anywhere deeper the top-level member alone (arrival). field NULL when
-- the document is not an object. depth: 0 for the top level. Called only on a document in which
-- some object repeats a key (app.json_body counted them).
-- The top level comes first in document order; then the first member holding a repetition, found by
-- bisection (app.json_first_repeating), and in an array value the first such element: a few reads
-- of the text whatever the number of objects in it.
CREATE OR REPLACE FUNCTION app.json_first_repeated_key(p_json json, p_held jsonb, OUT field text, OUT depth integer)
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_keys text[];
    v_values text[];
    v_held jsonb;
    v_member integer;
    v_value json;
    v_elements text[];
    v_element integer;
BEGIN
    IF json_typeof(p_json) <> 'object' THEN
        RETURN;
    END IF;
    field := app.json_own_repeated_key(p_json);
    IF field IS NOT NULL THEN
        depth := 0;
        RETURN;
    END IF;
    SELECT array_agg(m.key ORDER BY m.n), array_agg(m.value::text ORDER BY m.n), jsonb_agg(p_held -> m.key ORDER BY m.n)
      INTO v_keys, v_values, v_held
      FROM json_each(p_json) WITH ORDINALITY AS m(key, value, n);
    -- (the caller found a repetition, and the top level holds none: a member's value does)
    v_member := app.json_first_repeating(v_values, v_held);
    v_value := v_values[v_member]::json;
    depth := 1;
    field := v_keys[v_member] || '.' || app.json_own_repeated_key(v_value);
    IF field IS NOT NULL THEN
        RETURN;
    END IF;
    depth := 2;
    IF json_typeof(v_value) = 'array' THEN
        -- (the array holds no object of its own: one of its elements holds the repetition)
        -- (in the order the array gives them: a lone function scan returns its rows as the function
        -- gives them; sorting thousands of elements again by their ordinality cost more than the search)
        v_elements := ARRAY(SELECT e.value::text FROM json_array_elements(v_value) AS e(value));
        v_element := app.json_first_repeating(v_elements, p_held -> v_keys[v_member]);
        field := v_keys[v_member] || '[' || (v_element - 1) || '].' || app.json_own_repeated_key(v_elements[v_element]::json);
    END IF;
    field := coalesce(field, v_keys[v_member]);
END
$$;
REVOKE ALL ON FUNCTION app.json_first_repeated_key(json, jsonb) FROM PUBLIC;

-- A JSON text with every backslash escape spelled out without a backslash, reversibly: `~` itself
-- first becomes `~0`, then `\\` `~1`, `\"` `~2`, any other `\` `~3` (escapes are read left to right, as
-- replace() reads them). The same structure and the same members, no escape left for a parser to
-- fail on, and every quote left is a string's own.
CREATE OR REPLACE FUNCTION app.json_plain(p_json text)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT replace(replace(replace(replace(p_json, '~', '~0'), '\\', '~1'), '\"', '~2'), '\', '~3');
$$;
REVOKE ALL ON FUNCTION app.json_plain(text) FROM PUBLIC;

-- A piece of a plain copy (app.json_plain) back as it was sent: the replacements in reverse order.
CREATE OR REPLACE FUNCTION app.json_unplain(p_plain text)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT replace(replace(replace(replace(p_plain, '~3', '\'), '~2', '\"'), '~1', '\\'), '~0', '~');
$$;
REVOKE ALL ON FUNCTION app.json_unplain(text) FROM PUBLIC;

-- The top-level member of a syntactically valid JSON object whose value holds the first token, in
-- document order, that jsonb cannot hold, or NULL (not an object, or the fault is in a top-level
-- key). PostgreSQL's JSON functions de-escape every string while they walk, so they cannot walk the
-- text as sent. They walk its plain copy instead (app.json_plain), and each piece turns back into
-- its text as sent (app.json_unplain). Only the keys and values that can fail are tried:
-- those with a \u escape, an exponent of four digits or more, or over 1000 characters (a number of at
-- most 1000 characters whose exponent is under 1000 is within numeric's range). By bisection over
-- them in document order: O(log n) tries, each in its own subtransaction. Only ever called on the
-- refusal path.
CREATE OR REPLACE FUNCTION app.json_member_not_held(p_json text)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_plain json;
    v_tokens text[];
    v_members text[];
    v_low integer := 1;
    v_high integer;
    v_middle integer;
BEGIN
    IF json_typeof(p_json::json) <> 'object' THEN
        RETURN NULL;
    END IF;
    v_plain := app.json_plain(p_json)::json;
    WITH member AS (
        SELECT m.n, '"' || m.key || '"' AS key, m.value::text AS value
          FROM json_each(v_plain) WITH ORDINALITY AS m(key, value, n)),
    suspect AS (
        -- each key or value that can fail, in document order (a key before its value), as plain text
        SELECT m.n, 0 AS side, m.key AS token, NULL::text AS member
          FROM member AS m
         WHERE strpos(m.key, '~3u') > 0
        UNION ALL
        SELECT m.n, 1, m.value, m.key
          FROM member AS m
         WHERE strpos(m.value, '~3u') > 0 OR m.value ~ '[eE][-+]?[0-9]{4}' OR char_length(m.value) > 1000)
    SELECT array_agg(s.token ORDER BY s.n, s.side), array_agg(s.member ORDER BY s.n, s.side)
      INTO v_tokens, v_members
      FROM suspect AS s;

    -- The first token not held lies in v_low .. v_high, if any does. A run of tokens is tried as
    -- sent: their plain texts joined, then turned back at once (a plain token's codes never run
    -- into the next one's, so this is the tokens as sent, joined).
    v_high := coalesce(cardinality(v_tokens), 0);
    WHILE v_low < v_high LOOP
        v_middle := (v_low + v_high) / 2;
        IF app.json_values_held(app.json_unplain(array_to_string(v_tokens[v_low:v_middle], ','))) THEN
            v_low := v_middle + 1;
        ELSE
            v_high := v_middle;
        END IF;
    END LOOP;
    IF v_high = 0 OR app.json_values_held(app.json_unplain(v_tokens[v_low])) THEN
        RETURN NULL;
    END IF;
    -- (a value's key is held: were it not, the key would have come first)
    RETURN app.json_unplain(v_members[v_low])::jsonb #>> '{}';
END
$$;
REVOKE ALL ON FUNCTION app.json_member_not_held(text) FROM PUBLIC;

-- Whether jsonb can hold every one of these JSON texts (p_values: the texts joined by commas).
CREATE OR REPLACE FUNCTION app.json_values_held(p_values text)
RETURNS boolean
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ('[' || p_values || ']')::jsonb;
    RETURN true;
EXCEPTION
    WHEN data_exception OR statement_too_complex OR program_limit_exceeded THEN
        RETURN false;
END
$$;
REVOKE ALL ON FUNCTION app.json_values_held(text) FROM PUBLIC;
