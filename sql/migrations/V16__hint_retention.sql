-- Retention of webhook hints (issue 34): delivered and dead hints are deleted once they are older
-- than `webhook_hint_retention` (whole days, 1-9999; default 30), by the delivery worker in small
-- batches (webhook.expire_hints). Until now the table only grew.
SET LOCAL ROLE ingest_owner;

-- The expiry reads the finished hints oldest first and stops at the retention's edge: it never
-- visits a kept hint, and never an undelivered one. Built first: while it builds, writes of hints
-- (and so of bookings while an endpoint is armed) wait; nothing else does.
CREATE INDEX webhook_hints_finished_by_occurrence ON app.webhook_hints (occurred_at)
    WHERE state <> 'undelivered';

INSERT INTO app.settings (name, value) VALUES ('webhook_hint_retention', '30 days');
-- A retention that is not whole days would stop the worker's expiry at its first call: refused here,
-- when a DBA sets it, instead. Last: it holds app.settings, which every feed page reads, alone until
-- the migration commits, a moment later.
ALTER TABLE app.settings ADD CONSTRAINT settings_webhook_hint_retention_in_days
    CHECK (name <> 'webhook_hint_retention' OR value ~ '^[1-9][0-9]{0,3} days?$');

RESET ROLE;
