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
    v_counted text;
    v_exponent boolean;
    v_repeats boolean;
    v_repeated record;
BEGIN
    IF p_body IS NULL THEN
        PERFORM app.refuse(422, 'invalid_json');
    END IF;
    BEGIN
        v_body := p_body::jsonb;
        v_counted := app.json_countable(p_body);
    EXCEPTION
        WHEN statement_too_complex THEN
            PERFORM app.refuse(422, 'invalid_json');
        WHEN data_exception OR program_limit_exceeded THEN
            v_held := false;
    END;
    IF v_held THEN
        IF jsonb_typeof(v_body) <> 'object' THEN
            RETURN v_body;
        END IF;
        -- (v_body's text is read only once no number in it can be written out in full)
        v_exponent := app.json_exponent_beyond_range(p_body);
        IF NOT v_exponent THEN
            v_repeats := app.json_repeats_a_key(v_counted, v_body);
            IF NOT v_repeats THEN
                RETURN v_body;
            END IF;
        END IF;
    END IF;
    -- What is left reads the body again to name a member, a few stack frames deeper than the
    -- readings above: a body nested just short of what they read can be too deep for it, and is
    -- then too deep to read (never a 500).
    BEGIN
        IF NOT v_held THEN
            BEGIN
                PERFORM p_body::json;
            EXCEPTION
                WHEN data_exception OR statement_too_complex OR program_limit_exceeded THEN
                    PERFORM app.refuse(422, 'invalid_json');
            END;
            PERFORM app.refuse(422, 'invalid_body', app.json_member_not_held(p_body));
        END IF;
        -- (the exponent check is exact: some member holds such a number)
        IF v_exponent THEN
            PERFORM app.refuse(422, 'invalid_body', app.json_member_with_exponent_beyond_range(p_body));
        END IF;
        IF v_repeats THEN
            SELECT * INTO v_repeated FROM app.json_first_repeated_key(p_body::json, v_counted::json, v_body);
            IF v_repeated.field IS NOT NULL THEN
                PERFORM app.refuse(422, CASE WHEN v_repeated.depth = 0 THEN 'invalid_body' ELSE p_nested_error END, v_repeated.field);
            END IF;
        END IF;
        RETURN v_body;
    EXCEPTION
        WHEN statement_too_complex THEN
            PERFORM app.refuse(422, 'invalid_json');
    END;
END
$$;
REVOKE ALL ON FUNCTION app.json_body(text, text) FROM PUBLIC;

-- A number's exponent beyond ±20, as a regular expression: a digit, then e or E, an optional sign,
-- leading zeros, and 21 or more.
CREATE OR REPLACE FUNCTION app.json_exponent_pattern()
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '[0-9][eE][-+]?0*(2[1-9]|[3-9][0-9]|[1-9][0-9][0-9])';
$$;
REVOKE ALL ON FUNCTION app.json_exponent_pattern() FROM PUBLIC;

-- Whether a JSON text holds a number (not a string) written with an exponent beyond ±20. A cheap
-- first look at the text as sent, which strings can match too (`"1e21"`, a hex or uuid piece such as
-- `"0f7e29c1"`); only when it matches, its plain copy (app.json_plain) is read.
CREATE OR REPLACE FUNCTION app.json_exponent_beyond_range(p_json text)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT p_json ~ app.json_exponent_pattern() AND app.json_plain_exponent_beyond_range(app.json_plain(p_json));
$$;
REVOKE ALL ON FUNCTION app.json_exponent_beyond_range(text) FROM PUBLIC;

-- The same of a plain copy (app.json_plain), or of plain pieces joined: the exponent looked for
-- outside strings, after a run of whole strings and other characters from the start (every quote
-- of a plain copy is a string's own). One pass of a regular expression (~1 ms on 64 KiB), not one
-- per member.
CREATE OR REPLACE FUNCTION app.json_plain_exponent_beyond_range(p_plain text)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT p_plain ~ ('^([^"]|"[^"]*")*' || app.json_exponent_pattern());
$$;
REVOKE ALL ON FUNCTION app.json_plain_exponent_beyond_range(text) FROM PUBLIC;

-- The first top-level member, in document order, of a JSON object text whose value holds a number
-- (not a string) written with an exponent beyond ±20, named as sent, or NULL. By bisection over the
-- members' values in the plain copy (app.json_plain), joined in runs: about one read of the text
-- (~6 ms for 9 000 members, against ~25 ms when each value was searched on its own).
CREATE OR REPLACE FUNCTION app.json_member_with_exponent_beyond_range(p_json text)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_keys text[];
    v_values text[];
    v_low integer := 1;
    v_high integer;
    v_middle integer;
BEGIN
    -- (in document order: a lone function scan returns its rows as the function gives them, and
    -- sorting them again by their ordinality cost more than the search)
    SELECT array_agg(m.key), array_agg(m.value::text)
      INTO v_keys, v_values
      FROM json_each(app.json_plain(p_json)::json) AS m(key, value);
    -- The first such value lies in v_low .. v_high, if any does.
    v_high := coalesce(cardinality(v_values), 0);
    WHILE v_low < v_high LOOP
        v_middle := (v_low + v_high) / 2;
        IF app.json_plain_exponent_beyond_range(array_to_string(v_values[v_low:v_middle], ',')) THEN
            v_high := v_middle;
        ELSE
            v_low := v_middle + 1;
        END IF;
    END LOOP;
    IF v_high = 0 OR NOT app.json_plain_exponent_beyond_range(v_values[v_low]) THEN
        RETURN NULL;
    END IF;
    RETURN app.json_unplain('"' || v_keys[v_low] || '"')::jsonb #>> '{}';
END
$$;
REVOKE ALL ON FUNCTION app.json_member_with_exponent_beyond_range(text) FROM PUBLIC;

-- A JSON text written the way PostgreSQL writes jsonb's strings, every member kept, so that its
-- app.json_key_marks can be compared with those of the jsonb read from it: json_strip_nulls writes
-- the text again as json, keys given twice included, each string de-escaped and escaped again as
-- jsonb writes it (`\u003a` becomes `:`, `\/` `/`), numbers as sent. It drops members whose value is
-- null, so every `null` becomes `0` first (inside strings and keys too: the text is only counted,
-- and a string's colons and quotes stay where they were). Each `\n` escape is written `\u000a`
-- before that: a string's `\null` (a line break, then `ull`) would otherwise become the invalid
-- escape `\0`.
CREATE OR REPLACE FUNCTION app.json_countable(p_json text)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT json_strip_nulls(replace(replace(p_json, '\n', '\u000a'), 'null', '0')::json)::text;
$$;
REVOKE ALL ON FUNCTION app.json_countable(text) FROM PUBLIC;

-- How many `":` a JSON text holds: one after each key, plus those inside strings (a string opening
-- with a colon, an escaped quote before a colon). Two texts whose strings are written alike (jsonb's
-- text and app.json_countable's) hold as many of the second kind when they hold the same strings,
-- and one text's strings that the other lacks only add to its count. So the text as sent
-- (app.json_countable) holds as many marks as the jsonb read from it exactly when no key is given
-- twice: jsonb keeps the last of such members and drops the others with their strings. (Bytes, not
-- characters: octet_length is the text's size, char_length walks it.)
CREATE OR REPLACE FUNCTION app.json_key_marks(p_written text)
RETURNS integer
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (octet_length(p_written) - octet_length(replace(p_written, '":', ''))) / 2;
$$;
REVOKE ALL ON FUNCTION app.json_key_marks(text) FROM PUBLIC;

-- Whether a JSON object text gives some key twice, from its app.json_countable copy and the jsonb
-- read from it: jsonb keeps one member per key, so it holds fewer keys exactly when one is repeated.
CREATE OR REPLACE FUNCTION app.json_repeats_a_key(p_counted text, p_held jsonb)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT app.json_key_marks(p_counted) <> app.json_key_marks(p_held::text);
$$;
REVOKE ALL ON FUNCTION app.json_repeats_a_key(text, jsonb) FROM PUBLIC;

-- The position (from 1) of the first of these JSON texts in which an object gives a key twice; the
-- caller knows that one does. p_sent: the values as app.json_countable writes them; p_held: the same
-- values as jsonb wrote them (`jsonb::text`), in the same order. By bisection over runs of them: a
-- run's app.json_key_marks as sent against held, in the run's texts joined. O(log n) tries, about
-- twice the text in all; nothing parsed.
CREATE OR REPLACE FUNCTION app.json_first_repeating(p_sent text[], p_held text[])
RETURNS integer
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_low integer := 1;
    v_high integer := cardinality(p_sent);
    v_middle integer;
BEGIN
    WHILE v_low < v_high LOOP
        v_middle := (v_low + v_high) / 2;
        IF app.json_key_marks(array_to_string(p_sent[v_low:v_middle], ','))
           <> app.json_key_marks(array_to_string(p_held[v_low:v_middle], ',')) THEN
            v_high := v_middle;
        ELSE
            v_low := v_middle + 1;
        END IF;
    END LOOP;
    RETURN v_low;
END
$$;
REVOKE ALL ON FUNCTION app.json_first_repeating(text[], text[]) FROM PUBLIC;

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
-- some object repeats a key: app.json_body's counts, which are exact, say so, and each step below
-- takes the repetition to be in what is left (one object or array member: that one).
-- p_counted: the same document as app.json_countable writes it; p_held: as jsonb read it.
-- The top level comes first in document order; then, among the members whose value is an object or
-- an array, the first one holding a repetition, found by bisection (app.json_first_repeating), and
-- in an array value the first such element: a few reads of the text whatever the number of
-- objects in it. Only a value with two key marks or more can hold a repetition, so only those are
-- searched (an array of 32 000 numbers and one object: one element to look at, not 32 000 held
-- texts to write). Names come from the document as sent (p_counted's keys have `0` for `null`).
CREATE OR REPLACE FUNCTION app.json_first_repeated_key(p_json json, p_counted json, p_held jsonb, OUT field text, OUT depth integer)
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_members integer;
    v_keys text[];
    v_values text[];
    v_member integer;
    v_value json;
    v_positions bigint[];
    v_sent text[];
    v_held jsonb;
    v_element bigint;
BEGIN
    IF json_typeof(p_json) <> 'object' THEN
        RETURN;
    END IF;
    -- Each member as sent that can hold a repetition, with its value as counted (p_counted gives the
    -- members in the same order), in document order (a lone function scan, as below). Only an object
    -- or an array can, and only with two key marks or more (app.json_key_marks, written out here: a
    -- call per row costs more than the search it saves).
    SELECT count(*),
           array_agg(m.key) FILTER (WHERE c.can_repeat),
           array_agg(m.value::text) FILTER (WHERE c.can_repeat)
      INTO v_members, v_keys, v_values
      FROM ROWS FROM (json_object_keys(p_json), json_each(p_counted)) AS m(key, counted_key, value),
           LATERAL (SELECT json_typeof(m.value) IN ('object', 'array')
                           AND octet_length(m.value::text) - octet_length(replace(m.value::text, '":', '')) >= 4) AS c(can_repeat);
    IF v_members <> (SELECT count(*) FROM jsonb_object_keys(p_held)) THEN
        field := app.json_own_repeated_key(p_json);
        depth := 0;
        RETURN;
    END IF;
    IF v_keys IS NULL THEN
        RETURN;
    END IF;
    -- (held values as text, never gathered into one jsonb: jsonb_agg rebuilds its values token by
    -- token, ~5 ms for 6 500 objects)
    v_member := CASE WHEN cardinality(v_keys) = 1 THEN 1
                     ELSE app.json_first_repeating(v_values, ARRAY(SELECT (p_held -> k.key)::text
                                                                     FROM unnest(v_keys) AS k(key)))
                END;
    v_value := p_json -> v_keys[v_member];
    depth := 1;
    field := v_keys[v_member] || '.' || app.json_own_repeated_key(v_value);
    IF field IS NOT NULL THEN
        RETURN;
    END IF;
    depth := 2;
    IF json_typeof(v_value) = 'array' THEN
        -- (the array holds no object of its own: one of its elements holds the repetition)
        -- The elements that can hold it (two key marks or more, as above), with their positions from
        -- 1, in the order the array gives them (a lone function scan returns its rows as the function
        -- gives them; sorting thousands of elements again by their ordinality cost more than the
        -- search); each one's held text read by its position (jsonb finds an array element without
        -- walking the others), not every element of the held array split into rows.
        SELECT array_agg(e.position), array_agg(e.value::text)
          INTO v_positions, v_sent
          FROM json_array_elements(v_values[v_member]::json) WITH ORDINALITY AS e(value, position)
         WHERE octet_length(e.value::text) - octet_length(replace(e.value::text, '":', '')) >= 4;
        v_held := p_held -> v_keys[v_member];
        v_element := v_positions[CASE WHEN cardinality(v_positions) = 1 THEN 1
                                      ELSE app.json_first_repeating(
                                               v_sent,
                                               ARRAY(SELECT (v_held -> (p.position - 1)::integer)::text
                                                       FROM unnest(v_positions) AS p(position)))
                                 END];
        field := v_keys[v_member] || '[' || (v_element - 1) || '].' || app.json_own_repeated_key(v_value -> (v_element - 1)::integer);
    END IF;
    field := coalesce(field, v_keys[v_member]);
END
$$;
REVOKE ALL ON FUNCTION app.json_first_repeated_key(json, json, jsonb) FROM PUBLIC;

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
