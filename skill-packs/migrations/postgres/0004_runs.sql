-- Durable runs: a run, its finished units and its answered model requests. Writes for a
-- run in progress lock its row and check the lease holder in the same transaction.
CREATE TABLE IF NOT EXISTS {schema}.runs (
    id               TEXT PRIMARY KEY,
    kind             TEXT NOT NULL,
    status           TEXT NOT NULL,
    started_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL,
    finished_at      TIMESTAMPTZ,
    fingerprint      TEXT NOT NULL,
    spec             TEXT NOT NULL,
    units_total      BIGINT NOT NULL,
    units_done       BIGINT NOT NULL DEFAULT 0,
    model_requests   BIGINT NOT NULL DEFAULT 0,
    input_tokens     BIGINT NOT NULL DEFAULT 0,
    output_tokens    BIGINT NOT NULL DEFAULT 0,
    lease_holder     TEXT,
    lease_until      TIMESTAMPTZ,
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
    error            TEXT,
    result           TEXT,
    seq              BIGSERIAL
);
CREATE INDEX IF NOT EXISTS runs_started ON {schema}.runs (started_at);
CREATE TABLE IF NOT EXISTS {schema}.run_units (
    run_id TEXT NOT NULL REFERENCES {schema}.runs (id) ON DELETE CASCADE,
    kind   TEXT NOT NULL,
    key    TEXT NOT NULL,
    counts BOOLEAN NOT NULL,
    body   TEXT NOT NULL,
    seq    BIGSERIAL,
    PRIMARY KEY (run_id, kind, key)
);
CREATE TABLE IF NOT EXISTS {schema}.run_requests (
    run_id        TEXT NOT NULL REFERENCES {schema}.runs (id) ON DELETE CASCADE,
    key           TEXT NOT NULL,
    occurrence    INTEGER NOT NULL,
    label         TEXT NOT NULL,
    response      TEXT NOT NULL,
    input_tokens  BIGINT NOT NULL,
    output_tokens BIGINT NOT NULL,
    cached_tokens BIGINT NOT NULL,
    seq           BIGSERIAL,
    PRIMARY KEY (run_id, key, occurrence)
);
