-- What several servers on one database share beyond the gateway's tables: the outcome of
-- an audit record written when its call started (appended when the call ends, so the audit
-- log stays append-only), and the calls parked for a person's consent.
CREATE TABLE IF NOT EXISTS {schema}.pack_audit_outcome (
    audit_id    BIGINT PRIMARY KEY, -- the id of its row in pack_audit
    outcome     TEXT NOT NULL,
    message     TEXT,
    duration_ms DOUBLE PRECISION NOT NULL
);
DROP TRIGGER IF EXISTS pack_audit_outcome_append_only ON {schema}.pack_audit_outcome;
CREATE TRIGGER pack_audit_outcome_append_only
    BEFORE UPDATE OR DELETE ON {schema}.pack_audit_outcome
    FOR EACH ROW EXECUTE FUNCTION {schema}.pack_audit_append_only();
DROP TRIGGER IF EXISTS pack_audit_outcome_no_truncate ON {schema}.pack_audit_outcome;
CREATE TRIGGER pack_audit_outcome_no_truncate
    BEFORE TRUNCATE ON {schema}.pack_audit_outcome
    FOR EACH STATEMENT EXECUTE FUNCTION {schema}.pack_audit_append_only();

CREATE TABLE IF NOT EXISTS {schema}.pending_confirmations (
    id         BIGSERIAL PRIMARY KEY,
    skill_id   TEXT NOT NULL,
    arguments  JSONB NOT NULL,
    summary    TEXT NOT NULL,
    from_state BOOLEAN NOT NULL,
    parked_at  TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS pending_confirmations_expires ON {schema}.pending_confirmations (expires_at);
