-- The bookings feed served by hot standbys (issue 34): what a standby cannot see of the primary,
-- published by the primary, and the key of the identity the primary asserts for a standby read.
-- sql/README.md, "The feed on a standby", gives the argument.
SET LOCAL ROLE ingest_owner;

-- The open booking writers, as the primary saw them (api.bookings_feed_publish, every second or
-- so): the moment it looked, and for each writer lock key held then (app.booking_writer_key's, as
-- pg_locks shows it) the earliest writer start it carried. One row, replaced at each publication.
-- Not tenant data (keys are hashes of operator ids); read by the owner's functions only, like
-- app.settings, so no row-level security. Never published: -infinity, and a standby serves no feed.
CREATE TABLE app.booking_writers_published (
    singleton    boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    published_at timestamptz NOT NULL,
    -- {"<lock key>": <writer start, whole seconds since 2020-01-01>, ...}
    writers      jsonb NOT NULL CHECK (jsonb_typeof(writers) = 'object')
);
INSERT INTO app.booking_writers_published (published_at, writers) VALUES ('-infinity', '{}');

-- The key of the read assertions the primary signs for a standby (api.bookings_read_assertion):
-- its own, not the cursor key's.
INSERT INTO app.server_secrets (name, value) VALUES ('read_assertion_key', extensions.gen_random_bytes(32));

RESET ROLE;
