-- The catalog of registered skills, as `clausewright catalog sync` writes it.
CREATE TABLE IF NOT EXISTS {schema}.skill_catalog (
    id             TEXT PRIMARY KEY,
    name           TEXT NOT NULL,
    description    TEXT NOT NULL,
    domain         TEXT NOT NULL,
    category       TEXT NOT NULL,
    status         TEXT NOT NULL,
    version        TEXT NOT NULL,
    parameters     JSONB NOT NULL,
    output_schema  JSONB NOT NULL,
    schema_hash    TEXT NOT NULL,
    usage_example  TEXT NOT NULL,
    enabled        BOOLEAN NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL
);
