-- The bookings cursor (spec: GET /bookings `since`, Errors invalid_cursor; docs/design.md, the feed's
-- guarantee): `next` is a token of the service, signed with a database-held key and bound to the
-- operator, that names a feed position and carries nothing else; the next call accepts it, and the
-- same position always gets the same token. Anything the service did not issue to this operator
-- under its current key is PT422 invalid_cursor, field since: garbage, a tampered or truncated token
-- (including another spelling of the same bytes), another operator's, one signed with another key,
-- one over 512 characters. An empty or absent since reads from the beginning. The read_bookings
-- scope (the uniform 401) is checked before the cursor. The query's syntax (limit 1-500, since at
-- most 512 characters) is the gateway's, refused before authentication (bookings_feed.rs).
BEGIN;
SELECT plan(85);

CREATE TEMP TABLE fx AS
SELECT a, b, c,
       tests.issue_credential(a, ARRAY['read_bookings']) AS bearer,
       tests.issue_credential(a, ARRAY['read_bookings']) AS second_bearer,
       tests.issue_credential(a, ARRAY['read_supply']) AS supply_bearer,
       tests.issue_credential(a, ARRAY['write_supply']) AS write_bearer,
       tests.issue_credential(a) AS all_scopes_bearer,
       tests.issue_credential(b, ARRAY['read_bookings']) AS b_bearer,
       tests.issue_credential(c, ARRAY['read_bookings']) AS c_bearer
  FROM tests.make_operator('Harbour Parking') AS a, tests.make_operator('Quay Parking') AS b,
       tests.make_operator('Empty Parking') AS c;
GRANT SELECT ON fx TO PUBLIC;

-- A's bookings FEED-1..3 and B's QUAY-1, an hour ago one second apart: well before the watermark
-- (now minus five minutes), so a page's `next` names its last row.
SELECT is((SELECT p.status FROM fx, tests.put_lot(fx.write_bearer, 'l1', tests.lot_body()) AS p), 201, 'the fixture: A''s lot l1');
SELECT is((SELECT p.status FROM fx, tests.put_lot(tests.issue_credential(b, ARRAY['write_supply']), 'l1', tests.lot_body()) AS p), 201,
          'the fixture: B''s lot l1');
SELECT is(
    (SELECT array_agg(tests.restamp_booking(a, tests.record_booking(a, tests.booking_body('l1', jsonb_build_object('reference', 'FEED-' || n))),
                                            now() - interval '1 hour' + n * interval '1 second') ORDER BY n)
       FROM fx, generate_series(1, 3) AS n),
    ARRAY[true, true, true], 'the fixture: A''s bookings FEED-1, FEED-2, FEED-3, an hour ago one second apart');
SELECT ok((SELECT tests.restamp_booking(b, tests.record_booking(b, tests.booking_body('l1', '{"reference": "QUAY-1", "currency": "GBP"}')),
                                        now() - interval '1 hour') FROM fx),
          'the fixture: B''s booking QUAY-1, an hour ago');

-- One answer of GET /bookings for A: (status, body).
CREATE FUNCTION pg_temp.pull(p_since text, p_limit integer DEFAULT 500)
RETURNS TABLE (status integer, body jsonb)
LANGUAGE sql
AS $$
    SELECT g.status, g.body FROM fx, tests.get_bookings(fx.bearer, p_since, p_limit) AS g;
$$;

-- The references of one answer for A, in order.
CREATE FUNCTION pg_temp.refs(p_since text, p_limit integer DEFAULT 500)
RETURNS text[]
LANGUAGE sql
AS $$
    SELECT ARRAY(SELECT e ->> 'reference' FROM pg_temp.pull(p_since, p_limit) AS p, jsonb_array_elements(p.body -> 'bookings') AS e);
$$;

-- The `next` of one answer for A.
CREATE FUNCTION pg_temp.next(p_since text, p_limit integer DEFAULT 500)
RETURNS text
LANGUAGE sql
AS $$
    SELECT body ->> 'next' FROM pg_temp.pull(p_since, p_limit);
$$;

-- A's call with this since is refused: PT422 invalid_cursor, field since.
CREATE FUNCTION pg_temp.refused(p_since text, p_description text)
RETURNS text
LANGUAGE sql
AS $$
    SELECT tests.refuses(format('SELECT * FROM tests.get_bookings(%L, %L, 500)', bearer, p_since), 'PT422', 'invalid_cursor', 'since', p_description)
      FROM fx;
$$;

-- base64url without padding of a text's UTF-8 (tests.base64url).
CREATE FUNCTION pg_temp.b64url(p_text text)
RETURNS text
LANGUAGE sql
AS $$
    SELECT tests.base64url(convert_to(p_text, 'UTF8'));
$$;

-- HMAC-SHA256 of a payload bound to A under the service's cursor key, as the cursor is signed.
CREATE FUNCTION pg_temp.signature(p_payload text)
RETURNS bytea
LANGUAGE sql
AS $$
    SELECT extensions.hmac(convert_to(p_payload || '|' || a, 'UTF8'),
                           (SELECT s.value FROM app.server_secrets AS s WHERE s.name = 'cursor_key'), 'sha256')
      FROM fx;
$$;

-- The token of a payload signed with the service's key for A (any payload, issued or not).
CREATE FUNCTION pg_temp.signed(p_payload text)
RETURNS text
LANGUAGE sql
AS $$
    SELECT pg_temp.b64url(p_payload) || '.' || tests.base64url(pg_temp.signature(p_payload));
$$;

-- The text with its p_position-th character replaced by the base64url character whose 6-bit value
-- differs in the lowest bit only (A<->B, ..., -<->_): inside a base64 text that flips one bit of the
-- bytes; in a last character that carries spare bits, it spells the same bytes another way.
CREATE FUNCTION pg_temp.flip(p_text text, p_position integer)
RETURNS text
LANGUAGE sql
AS $$
    SELECT overlay(p_text PLACING translate(substr(p_text, p_position, 1),
                                            'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
                                            'BADCFEHGJILKNMPORQTSVUXWZYbadcfehgjilknmporqtsvuxwzy1032547698_-')
                   FROM p_position FOR 1);
$$;

-- The tokens of the walk FEED-1, FEED-2, FEED-3 one page at a time, and B's first.
CREATE TEMP TABLE tok AS SELECT pg_temp.next(NULL, 1) AS t1;
ALTER TABLE tok ADD t2 text, ADD t3 text, ADD b1 text;
UPDATE tok SET t2 = pg_temp.next(t1, 1);
UPDATE tok SET t3 = pg_temp.next(t2, 1);
UPDATE tok SET b1 = (SELECT g.body ->> 'next' FROM fx, tests.get_bookings(fx.b_bearer, NULL, 1) AS g);
GRANT SELECT ON tok TO PUBLIC;

-- A token from one answer is accepted by the next call ------------------------------------------------------------

SELECT is((SELECT status FROM pg_temp.pull(NULL)), 200, 'GET /bookings with read_bookings answers 200');
SELECT is((SELECT ARRAY(SELECT jsonb_object_keys(body) ORDER BY 1) FROM pg_temp.pull(NULL)), ARRAY['bookings', 'has_more', 'next'],
          'the answer has exactly the keys bookings, next, has_more');
SELECT matches((SELECT t1 FROM tok), '^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$',
               'next is a token: base64url payload, a dot, a base64url signature of 256 bits, no padding');
SELECT is(pg_temp.refs(NULL, 1), ARRAY['FEED-1'], 'a page of one from the beginning is FEED-1');
SELECT is(pg_temp.refs(t1, 1), ARRAY['FEED-2'], 'its next is accepted by the next call, which continues after FEED-1') FROM tok;
SELECT is(pg_temp.refs(t2, 1), ARRAY['FEED-3'], 'and that answer''s next after FEED-2') FROM tok;
SELECT is(pg_temp.refs(t1), ARRAY['FEED-2', 'FEED-3'], 'a token reads everything after its position') FROM tok;
SELECT is((SELECT body FROM pg_temp.pull(t3)), jsonb_build_object('bookings', '[]'::jsonb, 'next', t3, 'has_more', false),
          'a token at the end answers no bookings, has_more false, and itself as next') FROM tok;
SELECT is((SELECT g.status FROM fx, tok, tests.get_bookings(fx.second_bearer, tok.t1, 500) AS g), 200,
          'a token is bound to the operator, not the credential: another credential of A may use it');
SELECT is((SELECT ARRAY(SELECT e ->> 'reference' FROM jsonb_array_elements(g.body -> 'bookings') AS e)
             FROM fx, tok, tests.get_bookings(fx.all_scopes_bearer, tok.t1, 500) AS g),
          ARRAY['FEED-2', 'FEED-3'], 'and reads the same from it');
SELECT is((SELECT ARRAY(SELECT e ->> 'reference' FROM jsonb_array_elements(g.body -> 'bookings') AS e)
             FROM fx, tok, tests.get_bookings(fx.b_bearer, tok.b1, 500) AS g),
          '{}'::text[], 'B''s own token is accepted for B (after QUAY-1, nothing)');

-- Empty or absent since: from the beginning --------------------------------------------------------------------------

SELECT is(pg_temp.refs(NULL), ARRAY['FEED-1', 'FEED-2', 'FEED-3'], 'no since reads from the beginning');
SELECT is((SELECT body FROM pg_temp.pull('')), (SELECT body FROM pg_temp.pull(NULL)), 'an empty since is the same as none: the same answer');
SELECT is((SELECT g.body -> 'bookings' FROM fx, tests.get_bookings(fx.c_bearer, NULL, 500) AS g), '[]'::jsonb,
          'an operator without bookings reads an empty page');
SELECT is((SELECT g2.body FROM fx, tests.get_bookings(fx.c_bearer, NULL, 500) AS g, tests.get_bookings(fx.c_bearer, g.body ->> 'next', 500) AS g2),
          (SELECT g.body FROM fx, tests.get_bookings(fx.c_bearer, NULL, 500) AS g),
          'its next is a token too, accepted, and answers the same again');

-- A valid token is stable ----------------------------------------------------------------------------------------------

SELECT is(pg_temp.next(NULL, 1), (SELECT t1 FROM tok), 'the same call answers the same token');
SELECT is(pg_temp.next(NULL, 2), (SELECT t2 FROM tok), 'the same position reached another way (two at once) answers the same token');
SELECT is(pg_temp.next(t2), (SELECT t3 FROM tok), 'and so does the end reached from FEED-2 with a large page') FROM tok;

-- Tokens carry a position and nothing else in clear -------------------------------------------------------------------

SELECT is(tests.cursor_payload(t1),
          format('1|%s|FEED-1', (SELECT (extract(epoch FROM changed_at) * 1000000)::bigint FROM tests.booking(a, 'FEED-1'))),
          'the payload is "1|<change time in microseconds since 1970>|<reference>": the version and FEED-1''s position, nothing else')
  FROM fx, tok;
SELECT is((SELECT (tests.cursor_position(t1)).changed_at FROM tok), (SELECT (tests.booking(a, 'FEED-1')).changed_at FROM fx),
          'the position is exact to the microsecond');
SELECT is_empty(
    $$SELECT FROM fx, tok, unnest(ARRAY[a::text, replace(a::text, '-', ''), b::text, (tests.booking(a, 'FEED-1')).id::text, 'Lovelace', 'ada@example.test',
                                        'AB12 CDE', 'l1', 'Harbour']) AS secret
       WHERE strpos(tests.cursor_payload(t1), secret) > 0$$,
    'the payload holds no operator id, booking id, lot or customer data');
SELECT is_empty(
    $$SELECT FROM fx, tok, unnest(ARRAY[a::text, replace(a::text, '-', ''), (tests.booking(a, 'FEED-1')).id::text, replace((tests.booking(a, 'FEED-1')).id::text, '-', '')])
                           AS secret
       WHERE strpos(lower(t1), secret) > 0$$,
    'nor does the token in any other form: no operator or booking id in it');
SELECT ok((SELECT length(tests.cursor_payload(t1)) % 3 <> 0 FROM tok),
          'the fixture: FEED-1''s payload is not a multiple of three bytes long (its last base64 character has spare bits)');

-- Refused: garbage -----------------------------------------------------------------------------------------------------

SELECT pg_temp.refused('abc', 'abc is invalid_cursor since');
SELECT pg_temp.refused('.', 'a lone dot is invalid_cursor since');
SELECT pg_temp.refused('x.y', 'x.y is invalid_cursor since');
SELECT pg_temp.refused(' ', 'a blank since is invalid_cursor since (only empty means from the beginning)');
SELECT pg_temp.refused('0', 'a number is invalid_cursor since');
SELECT pg_temp.refused('FEED-1', 'a reference is invalid_cursor since');
SELECT pg_temp.refused('AAAA.' || repeat('A', 43), 'a token of the right shape whose payload is zero bytes is invalid_cursor since');
SELECT pg_temp.refused('_w.' || repeat('A', 43), 'one whose payload is not UTF-8 is invalid_cursor since');
SELECT pg_temp.refused('A.' || repeat('A', 43), 'one whose payload is not base64 (one character) is invalid_cursor since');
SELECT pg_temp.refused(pg_temp.b64url('1|0|') || '.' || repeat('A', 43), 'a well-formed payload with a made-up signature is invalid_cursor since');
SELECT pg_temp.refused(pg_temp.b64url('1|0|') || '.' || pg_temp.b64url(repeat('x', 32)), 'and with another made-up one');
SELECT pg_temp.refused(t1 || '=', 'a token with padding added is invalid_cursor since') FROM tok;
SELECT pg_temp.refused(' ' || t1, 'a token with a space before it is invalid_cursor since') FROM tok;
SELECT pg_temp.refused(t1 || '.' || split_part(t1, '.', 2), 'a token with its signature twice is invalid_cursor since') FROM tok;

-- Refused: tampered ----------------------------------------------------------------------------------------------------

SELECT pg_temp.refused(pg_temp.flip(t2, 5), 'a token with one character of its payload changed is invalid_cursor since') FROM tok;
SELECT pg_temp.refused(pg_temp.flip(t2, 1), 'with its first character changed') FROM tok;
SELECT pg_temp.refused(pg_temp.flip(t2, strpos(t2, '.') - 1),
                       'with the payload''s last character spelt another way (the same bytes: base64 spare bits) is invalid_cursor since') FROM tok;
SELECT pg_temp.refused(pg_temp.flip(t2, strpos(t2, '.') + 10), 'a token with one character of its signature changed is invalid_cursor since') FROM tok;
SELECT pg_temp.refused(pg_temp.flip(t2, length(t2)),
                       'with the signature''s last character spelt another way (the same bytes) is invalid_cursor since') FROM tok;
SELECT is(pg_temp.b64url(tests.cursor_payload(t2)) || '.' || split_part(t2, '.', 2), t2,
          'the payload decoded and encoded again unchanged is the same token (the check of the re-encodings below)') FROM tok;
SELECT pg_temp.refused(pg_temp.b64url(format('1|%s|FEED-2', (extract(epoch FROM p.changed_at) * 1000000)::bigint - 1)) || '.' || split_part(t2, '.', 2),
                       'the payload re-encoded one microsecond earlier, with the old signature, is invalid_cursor since')
  FROM tok, tests.cursor_position(tok.t2) AS p;
SELECT pg_temp.refused(pg_temp.b64url(format('1|%s|FEED-2', (extract(epoch FROM now() + interval '1 day') * 1000000)::bigint)) || '.' || split_part(t2, '.', 2),
                       'the payload re-encoded a day later (skipping ahead), with the old signature, is invalid_cursor since') FROM tok;
SELECT pg_temp.refused(pg_temp.b64url(replace(tests.cursor_payload(t2), 'FEED-2', 'FEED-1')) || '.' || split_part(t2, '.', 2),
                       'the payload re-encoded with another reference, with the old signature, is invalid_cursor since') FROM tok;
SELECT pg_temp.refused(pg_temp.b64url(regexp_replace(tests.cursor_payload(t2), '^1\|', '1|0')) || '.' || split_part(t2, '.', 2),
                       'the payload re-encoded with the same position spelt another way (a leading zero), with the old signature, is invalid_cursor since')
  FROM tok;
SELECT pg_temp.refused(split_part(t1, '.', 1) || '.' || split_part(t2, '.', 2), 'one token''s payload with another''s signature is invalid_cursor since') FROM tok;
SELECT pg_temp.refused(pg_temp.signed('2|0|'),
                       'a payload of another version, signed with the service''s key for A, is invalid_cursor since') FROM fx;
SELECT pg_temp.refused(pg_temp.signed('1|0|FEED-1|x'),
                       'a signed payload with a field too many is invalid_cursor since') FROM fx;

-- The payload's pattern at its bounds, each payload signed with the service's key for A: only the
-- signature is out of the way, so what decides is the pattern "1|<sign><1-18 digits>|<0-64 of
-- A-Za-z0-9_->" and the payload's bytes.
SELECT pg_temp.refused(pg_temp.signed('1|' || repeat('1', 19) || '|'), 'a signed payload whose time has 19 digits is invalid_cursor since');
SELECT pg_temp.refused(pg_temp.signed('1||FEED-1'), 'a signed payload without a time is invalid_cursor since');
SELECT pg_temp.refused(pg_temp.signed('1|0|' || repeat('R', 65)), 'a signed payload with a reference of 65 characters is invalid_cursor since');
SELECT pg_temp.refused(pg_temp.signed('1|0|FEED-é'), 'a signed payload with a character outside ASCII is invalid_cursor since');
SELECT pg_temp.refused(pg_temp.signed('1|0|FEED\1'), 'a signed payload with a backslash is invalid_cursor since');
SELECT pg_temp.refused(pg_temp.signed(E'1|0|FEED-1\n'), 'a signed payload with a line break after it is invalid_cursor since');
SELECT is((SELECT status FROM pg_temp.pull(pg_temp.signed('1|' || lpad('1', 18, '0') || '|' || repeat('R', 64)))), 200,
          'a signed payload at the bounds (a time of 18 digits, a reference of 64 characters) is accepted');
SELECT is((SELECT status FROM pg_temp.pull(pg_temp.signed('1|-' || lpad('1', 18, '0') || '|'))), 200,
          'and with a sign before the 18 digits');

-- Refused: truncated ---------------------------------------------------------------------------------------------------

SELECT pg_temp.refused(left(t2, -1), 'a token without its last character is invalid_cursor since') FROM tok;
SELECT pg_temp.refused(substr(t2, 2), 'a token without its first character is invalid_cursor since') FROM tok;
SELECT pg_temp.refused(split_part(t2, '.', 1) || '.', 'a token without its signature (the dot kept) is invalid_cursor since') FROM tok;
SELECT pg_temp.refused(split_part(t2, '.', 1), 'a token without its signature or the dot is invalid_cursor since') FROM tok;
SELECT pg_temp.refused('.' || split_part(t2, '.', 2), 'a signature alone is invalid_cursor since') FROM tok;

-- Refused: another operator's ------------------------------------------------------------------------------------------

SELECT pg_temp.refused(b1, 'a token issued to B, used by A, is invalid_cursor since') FROM tok;
SELECT tests.refuses(format('SELECT * FROM tests.get_bookings(%L, %L, 500)', b_bearer, t1), 'PT422', 'invalid_cursor', 'since',
                     'a token issued to A, used by B, is invalid_cursor since') FROM fx, tok;
SELECT tests.refuses(format('SELECT * FROM tests.get_bookings(%L, %L, 500)', c_bearer, t1), 'PT422', 'invalid_cursor', 'since',
                     'and used by C, which has no bookings at all') FROM fx, tok;

-- Refused: over 512 characters -----------------------------------------------------------------------------------------

SELECT pg_temp.refused(repeat('A', 513), '513 characters are invalid_cursor since');
SELECT pg_temp.refused(repeat('A', 469) || '.' || repeat('A', 43), '513 characters of a token''s shape are invalid_cursor since');
SELECT pg_temp.refused(repeat(t1, 10), 'a token ten times over is invalid_cursor since') FROM tok;

-- The page sizes at the ends of the range the gateway passes ------------------------------------------------------

SELECT is((SELECT status FROM pg_temp.pull(NULL, 1)), 200, 'limit 1 is accepted');
SELECT is((SELECT status FROM pg_temp.pull(NULL, 500)), 200, 'limit 500 is accepted');

-- The read_bookings scope, checked first ----------------------------------------------------------------------------

SELECT tests.refuses(format('SELECT * FROM tests.get_bookings(%L, NULL, 500)', supply_bearer), 'PT401', 'unauthorized', NULL,
                     'a read_supply credential is refused: PT401 unauthorized, no DETAIL') FROM fx;
SELECT tests.refuses(format('SELECT * FROM tests.get_bookings(%L, NULL, 500)', write_bearer), 'PT401', 'unauthorized', NULL,
                     'a write_supply credential is refused the same way') FROM fx;
SELECT tests.refuses(format('SELECT * FROM tests.get_bookings(%L, %L, 500)', supply_bearer, 'abc'), 'PT401', 'unauthorized', NULL,
                     'the credential is checked before the since') FROM fx;
SELECT tests.refuses(format('SELECT * FROM tests.get_bookings(%L, %L, 500)', supply_bearer, t1), 'PT401', 'unauthorized', NULL,
                     'a credential of A without read_bookings cannot use A''s token') FROM fx, tok;
SELECT tests.refuses($$SELECT * FROM tests.get_bookings('Bearer pk_api_00.nope', NULL, 500)$$, 'PT401', 'unauthorized', NULL,
                     'an unknown credential is refused the same way');
SELECT tests.refuses($$SELECT * FROM tests.get_bookings(NULL, NULL, 500)$$, 'PT401', 'unauthorized', NULL, 'and no credential');

-- Refused: signed with another key (last: it replaces the cursor key for the rest of this file) -------------------------

UPDATE app.server_secrets SET value = extensions.gen_random_bytes(32) WHERE name = 'cursor_key';
SELECT pg_temp.refused(t1, 'after the cursor key is replaced, a token signed with the old key is invalid_cursor since') FROM tok;
SELECT pg_temp.refused(t3, 'every one of them') FROM tok;
SELECT isnt(pg_temp.next(NULL, 1), (SELECT t1 FROM tok), 'the same position now gets another token');
SELECT is(pg_temp.refs(pg_temp.next(NULL, 1)), ARRAY['FEED-2', 'FEED-3'], 'which the next call accepts');

SELECT * FROM finish();
ROLLBACK;
