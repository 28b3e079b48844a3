-- Foundation: roles, schemas, operators, users, memberships, API credentials, server secrets.
--
-- Roles are cluster-wide, so they are created only when missing: several databases of one cluster
-- (a test run's, say) share them. Objects are owned by the NOLOGIN role ingest_owner; no other role
-- touches a table. Every function runs as ingest_owner (SECURITY DEFINER), and ingest_owner does not
-- bypass row-level security: FORCE makes the policies bind the owner too.

DO $roles$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'ingest_owner') THEN
        CREATE ROLE ingest_owner NOLOGIN NOINHERIT;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'ingest_gateway') THEN
        CREATE ROLE ingest_gateway LOGIN NOINHERIT;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'authenticator') THEN
        CREATE ROLE authenticator LOGIN NOINHERIT;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'anon') THEN
        CREATE ROLE anon NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'authenticated') THEN
        CREATE ROLE authenticated NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'platform_service') THEN
        CREATE ROLE platform_service NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'webhook_worker') THEN
        CREATE ROLE webhook_worker LOGIN NOINHERIT;
    END IF;
    -- The migrating account must be able to act as the owner (a superuser always can).
    IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        EXECUTE format('GRANT ingest_owner TO %I', current_user);
    END IF;
END
$roles$;

GRANT anon, authenticated TO authenticator;

-- Functions are never executable by PUBLIC; each function file grants its one caller role.
ALTER DEFAULT PRIVILEGES FOR ROLE ingest_owner REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

CREATE SCHEMA IF NOT EXISTS extensions;
CREATE EXTENSION IF NOT EXISTS pgcrypto WITH SCHEMA extensions;
GRANT USAGE ON SCHEMA extensions TO ingest_owner;

CREATE SCHEMA app AUTHORIZATION ingest_owner;        -- private: tables and internal functions
CREATE SCHEMA api AUTHORIZATION ingest_owner;        -- the gateway: one function per route
CREATE SCHEMA console AUTHORIZATION ingest_owner;    -- PostgREST, role authenticated
CREATE SCHEMA platform AUTHORIZATION ingest_owner;   -- reviewers, payment provider, booking engine

GRANT USAGE ON SCHEMA api TO ingest_gateway;
GRANT USAGE ON SCHEMA console TO authenticated;
GRANT USAGE ON SCHEMA platform TO platform_service;

SET LOCAL ROLE ingest_owner;

-- Reference lists (filled by the generated migration that follows).
CREATE TABLE app.iana_zones (name text PRIMARY KEY);
CREATE TABLE app.iso_countries (code text PRIMARY KEY CHECK (code ~ '^[A-Z]{2}$'));
CREATE TABLE app.iso_currencies (code text PRIMARY KEY CHECK (code ~ '^[A-Z]{3}$'));

-- Server secrets: readable by the owner's functions only; no role is granted anything on app.
CREATE TABLE app.server_secrets (
    name       text PRIMARY KEY,
    value      bytea NOT NULL CHECK (octet_length(value) >= 32),
    created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO app.server_secrets (name, value)
VALUES ('credential_pepper', extensions.gen_random_bytes(32));

CREATE TABLE app.operators (
    id                            uuid PRIMARY KEY,
    name                          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    status                        text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
    settlement_currency           text NOT NULL CHECK (settlement_currency ~ '^[A-Z]{3}$'),
    -- The folder of the operator's photos in the platform's photo store. Globally unique: it is how
    -- the media rule tells one operator's photos from another's.
    media_folder                  text NOT NULL UNIQUE,
    can_pay_out                   boolean NOT NULL DEFAULT false,
    listing_agreement_accepted_at timestamptz,
    created_at                    timestamptz NOT NULL DEFAULT now()
);

-- The sign-in system's users, keyed by the JWT `sub`. Not tenant data: one user may belong to
-- several operators through memberships.
CREATE TABLE app.users (
    id         uuid PRIMARY KEY,
    email      text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 320),
    two_step   boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE app.memberships (
    operator_id uuid NOT NULL REFERENCES app.operators (id),
    user_id     uuid NOT NULL REFERENCES app.users (id),
    role        text NOT NULL CHECK (role IN ('owner', 'manager', 'staff')),
    accepted    boolean NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (operator_id, user_id)
);
CREATE INDEX memberships_user_idx ON app.memberships (user_id);

CREATE TABLE app.api_credentials (
    operator_id  uuid NOT NULL REFERENCES app.operators (id),
    id           uuid NOT NULL DEFAULT gen_random_uuid(),
    key_id       text NOT NULL CHECK (key_id ~ '^pk_api_[0-9a-f]{32}$'),
    -- HMAC-SHA256(pepper, salt || secret). The secret itself is never stored.
    secret_salt  bytea NOT NULL CHECK (octet_length(secret_salt) = 16),
    secret_hash  bytea NOT NULL CHECK (octet_length(secret_hash) = 32),
    label        text NOT NULL CHECK (char_length(label) BETWEEN 1 AND 80),
    scopes       text[] NOT NULL CHECK (
                     cardinality(scopes) >= 1
                     AND scopes <@ ARRAY['read_supply', 'write_supply', 'read_bookings']),
    created_by   uuid REFERENCES app.users (id),
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz,
    last_used_at timestamptz,
    revoked_at   timestamptz,
    revoked_by   uuid REFERENCES app.users (id),
    PRIMARY KEY (operator_id, id),
    -- The one key that is global rather than per operator: the key id is how a request finds its
    -- operator, before any operator is known.
    UNIQUE (key_id)
);

-- A credential as the console shows it: never a salt, hash or secret. The row type of
-- console.api_credential_list and console.api_credential_revoke.
CREATE TYPE console.api_credential AS (
    credential_id uuid,
    key_id        text,
    label         text,
    scopes        text[],
    created_at    timestamptz,
    expires_at    timestamptz,
    last_used_at  timestamptz,
    revoked_at    timestamptz,
    state         text
);

-- Row-level security: the operator context is the transaction-local setting app.operator_id, set
-- only by app.authenticate (gateway) and app.console_caller (PostgREST), or by a platform function
-- for the operator it names. `(SELECT …)` makes the planner read it once per statement.
ALTER TABLE app.operators ENABLE ROW LEVEL SECURITY;
ALTER TABLE app.operators FORCE ROW LEVEL SECURITY;
CREATE POLICY "an operator sees only itself" ON app.operators
    USING (id = (SELECT nullif(current_setting('app.operator_id', true), '')::uuid));

ALTER TABLE app.memberships ENABLE ROW LEVEL SECURITY;
ALTER TABLE app.memberships FORCE ROW LEVEL SECURITY;
CREATE POLICY "memberships belong to the operator in context" ON app.memberships
    USING (operator_id = (SELECT nullif(current_setting('app.operator_id', true), '')::uuid));

ALTER TABLE app.api_credentials ENABLE ROW LEVEL SECURITY;
ALTER TABLE app.api_credentials FORCE ROW LEVEL SECURITY;
CREATE POLICY "credentials belong to the operator in context" ON app.api_credentials
    USING (operator_id = (SELECT nullif(current_setting('app.operator_id', true), '')::uuid));
-- Authentication must find a credential before any operator is known: the one row whose key id is
-- being authenticated is readable, and only for reading.
CREATE POLICY "a credential is readable by its key id during authentication" ON app.api_credentials
    FOR SELECT
    USING (key_id = (SELECT nullif(current_setting('app.authenticating_key_id', true), '')));

RESET ROLE;
