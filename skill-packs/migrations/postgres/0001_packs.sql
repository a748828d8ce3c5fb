-- Subscriptions, quota counters, the audit log and pack state of the skill-pack gateway.
-- `{schema}` is replaced by the schema the store was opened on.
CREATE TABLE IF NOT EXISTS {schema}.pack_subscriptions (
    user_id  TEXT NOT NULL,
    pack     TEXT NOT NULL,
    until_at TIMESTAMPTZ,
    PRIMARY KEY (user_id, pack)
);

CREATE TABLE IF NOT EXISTS {schema}.pack_quota (
    user_id      TEXT NOT NULL,
    tool         TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    window_end   BIGINT NOT NULL,
    used         INTEGER NOT NULL,
    PRIMARY KEY (user_id, tool, window_start)
);
CREATE INDEX IF NOT EXISTS pack_quota_window_end ON {schema}.pack_quota (window_end);

CREATE TABLE IF NOT EXISTS {schema}.pack_audit (
    id          BIGSERIAL PRIMARY KEY,
    consumer    TEXT NOT NULL,
    provider    TEXT NOT NULL,
    tool        TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    at          TIMESTAMPTZ NOT NULL,
    outcome     TEXT NOT NULL,
    message     TEXT,
    duration_ms DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS pack_audit_at ON {schema}.pack_audit (at);
CREATE INDEX IF NOT EXISTS pack_audit_consumer ON {schema}.pack_audit (consumer, at);
CREATE INDEX IF NOT EXISTS pack_audit_provider ON {schema}.pack_audit (provider, at);
CREATE INDEX IF NOT EXISTS pack_audit_user ON {schema}.pack_audit (user_id, at);

-- The audit log is append-only: rows are never changed or removed.
CREATE OR REPLACE FUNCTION {schema}.pack_audit_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'pack_audit is append-only: % is not allowed', TG_OP;
END;
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS pack_audit_append_only ON {schema}.pack_audit;
CREATE TRIGGER pack_audit_append_only
    BEFORE UPDATE OR DELETE ON {schema}.pack_audit
    FOR EACH ROW EXECUTE FUNCTION {schema}.pack_audit_append_only();
DROP TRIGGER IF EXISTS pack_audit_no_truncate ON {schema}.pack_audit;
CREATE TRIGGER pack_audit_no_truncate
    BEFORE TRUNCATE ON {schema}.pack_audit
    FOR EACH STATEMENT EXECUTE FUNCTION {schema}.pack_audit_append_only();

CREATE TABLE IF NOT EXISTS {schema}.pack_state (
    user_id TEXT NOT NULL,
    path    TEXT NOT NULL,
    value   JSONB NOT NULL,
    PRIMARY KEY (user_id, path)
);
