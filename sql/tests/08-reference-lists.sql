-- The reference lists (docs/design.md): IANA zone and link names from tzdata (not PostgreSQL's
-- pg_timezone_names, which also holds posix/…, right/…, localtime, posixrules), ISO 3166-1 alpha-2
-- countries and ISO 4217 currencies from iso-codes, generated into a migration.
BEGIN;
SELECT plan(24);

-- IANA zones ----------------------------------------------------------------------------------------

SELECT ok(EXISTS (SELECT FROM app.iana_zones WHERE name = 'Europe/London'), 'Europe/London is an IANA zone');
SELECT ok(EXISTS (SELECT FROM app.iana_zones WHERE name = 'America/Argentina/Buenos_Aires'),
          'America/Argentina/Buenos_Aires (three levels) is an IANA zone');
SELECT ok(EXISTS (SELECT FROM app.iana_zones WHERE name = 'UTC'), 'UTC is an IANA zone');
SELECT ok(EXISTS (SELECT FROM app.iana_zones WHERE name = 'US/Eastern'), 'the link US/Eastern is accepted');
SELECT ok(EXISTS (SELECT FROM app.iana_zones WHERE name = 'Europe/Kiev'), 'the link Europe/Kiev (renamed zone) is accepted');
SELECT is_empty(
    $$SELECT name FROM app.iana_zones
       WHERE name IN ('posix/Europe/London', 'right/UTC', 'localtime', 'posixrules', 'Factory', 'posix', 'right')
          OR name LIKE 'posix/%' OR name LIKE 'right/%'$$,
    'posix/…, right/…, localtime, posixrules and Factory are not IANA zone names');
SELECT is_empty($$SELECT name FROM app.iana_zones WHERE name IN ('europe/london', 'EUROPE/LONDON')$$,
                'zone names are exact: europe/london is not one');
SELECT is_empty($$SELECT name FROM app.iana_zones WHERE name IN ('EST5EDT+1', 'GMT+0:30', 'Mars/Olympus')$$,
                'POSIX TZ strings and made-up names are not zones');
SELECT is_empty(
    $$SELECT name FROM app.iana_zones EXCEPT SELECT name FROM pg_timezone_names$$,
    'PostgreSQL can convert times in every listed zone');
SELECT cmp_ok((SELECT count(*) FROM app.iana_zones), '>', 500::bigint, 'the zone list is the whole of tzdata (over 500 names)');

-- ISO 3166-1 alpha-2 --------------------------------------------------------------------------------

SELECT is((SELECT count(*) FROM app.iso_countries), 249::bigint, 'there are 249 ISO 3166-1 alpha-2 countries');
SELECT ok(EXISTS (SELECT FROM app.iso_countries WHERE code = 'GB'), 'GB is a country code');
SELECT ok(EXISTS (SELECT FROM app.iso_countries WHERE code = 'AR'), 'AR is a country code');
SELECT ok(NOT EXISTS (SELECT FROM app.iso_countries WHERE code = 'UK'), 'UK is not a country code (it is GB)');
SELECT ok(NOT EXISTS (SELECT FROM app.iso_countries WHERE code IN ('EU', 'XK', 'ZZ')),
          'EU, XK and ZZ (reserved or user-assigned) are not country codes');
SELECT is_empty($$SELECT code FROM app.iso_countries WHERE code !~ '^[A-Z]{2}$'$$,
                'every country code is two upper-case letters');

-- ISO 4217 --------------------------------------------------------------------------------------------

SELECT ok(EXISTS (SELECT FROM app.iso_currencies WHERE code = 'EUR'), 'EUR is a currency');
SELECT ok(EXISTS (SELECT FROM app.iso_currencies WHERE code = 'GBP'), 'GBP is a currency');
SELECT ok(EXISTS (SELECT FROM app.iso_currencies WHERE code = 'USD'), 'USD is a currency');
SELECT ok(NOT EXISTS (SELECT FROM app.iso_currencies WHERE code = 'XAU'), 'gold (XAU) is not a currency here');
SELECT ok(NOT EXISTS (SELECT FROM app.iso_currencies WHERE code = 'XXX'), 'XXX (no currency) is not a currency here');
SELECT ok(NOT EXISTS (SELECT FROM app.iso_currencies WHERE code = 'XTS'), 'XTS (testing) is not a currency here');
SELECT is_empty($$SELECT code FROM app.iso_currencies WHERE code IN ('XAG', 'XPT', 'XPD', 'XDR', 'XBA')$$,
                'precious metals, special drawing rights and bond units are not currencies here');
SELECT is_empty($$SELECT code FROM app.iso_currencies WHERE code !~ '^[A-Z]{3}$'$$,
                'every currency code is three upper-case letters');

SELECT * FROM finish();
ROLLBACK;
