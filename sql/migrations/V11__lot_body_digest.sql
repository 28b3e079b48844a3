-- PUT /lots/{external_id} sent again unchanged, without reading the body again (issue 14: an
-- unchanged PUT no dearer than a GET of the lot).
--
-- 1. app.lots.accepted_body_digest: SHA-256 of (the rules fingerprint, the operator's media folder,
--    the body text) of the body whose write produced the row's current fields; NULL when unknown.
--    app.lot_write sets it on every write it makes. When a PUT carries the same text under the same
--    rules, the full check could only answer what it answered then: the same fields, so `unchanged`.
-- 2. app.deployed_rules: one row, the fingerprint of the rules in force: a hash of the newest
--    migration and of every function of the app and api schemas, written by `ingest migrate` after
--    it applies sql/functions (app.deployed_rules_refresh). Any change of a function or of a
--    reference list changes it, and every stored digest stops matching until the lot's next write.
SET LOCAL ROLE ingest_owner;

ALTER TABLE app.lots ADD COLUMN accepted_body_digest bytea CHECK (octet_length(accepted_body_digest) = 32);

CREATE TABLE app.deployed_rules (
    singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    fingerprint bytea NOT NULL CHECK (octet_length(fingerprint) = 32),
    deployed_at timestamptz NOT NULL DEFAULT now()
);
-- Read by the owner's functions only, like app.server_secrets: no role is granted anything on app.
REVOKE ALL ON TABLE app.deployed_rules FROM PUBLIC;

RESET ROLE;
