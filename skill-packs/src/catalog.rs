//! The catalog of registered skills as a database table the product reads (`skill_catalog`),
//! and as documentation.
//!
//! [`CatalogEntry::from_registration`] describes one skill: id, name, description, domain,
//! category, status, version, parameter and output schemas with a hash of both, a usage
//! example (a tool-call snippet with the parameters' examples) and whether it is enabled.
//! [`sync_catalog`] upserts the entries by id into SQLite or PostgreSQL: rows whose content
//! did not change are left untouched, skills no longer registered are marked disabled
//! (never deleted), and the report says what was added, changed and disabled.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use toolwright::catalog::ToolDescriptor;
use toolwright::SkillRegistration;

use crate::store::{redact_url, StoreError};

/// One row of the `skill_catalog` table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CatalogEntry {
    /// Skill id (`zodiac.calculate_zodiac`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// What the skill does.
    pub description: String,
    /// Business domain.
    pub domain: String,
    /// Category (`query`, `create`, ...).
    pub category: String,
    /// `active`, `deprecated` or `disabled`.
    pub status: String,
    /// Version of the skill (empty when not given).
    pub version: String,
    /// JSON Schema of the parameters.
    pub parameters: Value,
    /// JSON Schema of the output.
    pub output_schema: Value,
    /// SHA-256 (hex) of both schemas.
    pub schema_hash: String,
    /// A tool-call snippet with the parameters' examples.
    pub usage_example: String,
    /// Whether the product may offer the skill (registered and active).
    pub enabled: bool,
}

/// SHA-256 (hex) of the parameter and output schemas.
pub fn schema_hash(parameters: &Value, output: &Value) -> String {
    let mut hasher = Sha256::new();
    hasher.update(parameters.to_string().as_bytes());
    hasher.update(b"\n");
    hasher.update(output.to_string().as_bytes());
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A tool-call snippet for `tool`: every parameter with an example, plus the required ones
/// (with their default, or `<kind>` when there is neither).
pub fn usage_example(tool: &ToolDescriptor) -> String {
    let mut params = Map::new();
    for p in &tool.parameters {
        let value = match (&p.example, &p.default) {
            (Some(example), _) => example.clone(),
            (None, Some(default)) if p.required => default.clone(),
            (None, None) if p.required && !p.prepared => {
                Value::String(format!("<{}>", p.value_kind))
            }
            _ => continue,
        };
        params.insert(p.name.clone(), value);
    }
    // `toolId` first, as a reader expects it.
    format!(
        "```tool_call\n{{\"toolId\":{},\"params\":{}}}\n```",
        Value::String(tool.id.to_string()),
        Value::Object(params)
    )
}

impl CatalogEntry {
    /// The entry of one registered skill.
    pub fn from_registration(reg: &SkillRegistration, tool: &ToolDescriptor) -> Self {
        let parameters = (reg.input_schema)().clone();
        let output_schema = (reg.output_schema)().clone();
        Self {
            id: reg.id.into(),
            name: reg.name.into(),
            description: reg.description.into(),
            domain: reg.domain.into(),
            category: reg.category.into(),
            status: reg.status.as_str().into(),
            version: reg.version.into(),
            schema_hash: schema_hash(&parameters, &output_schema),
            parameters,
            output_schema,
            usage_example: usage_example(tool),
            enabled: reg.is_active(),
        }
    }

    /// Whether `other` differs from this entry in anything the table keeps.
    fn differs(&self, row: &CatalogEntry) -> bool {
        self.schema_hash != row.schema_hash
            || self.name != row.name
            || self.description != row.description
            || self.domain != row.domain
            || self.category != row.category
            || self.status != row.status
            || self.version != row.version
            || self.usage_example != row.usage_example
            || self.enabled != row.enabled
    }
}

/// The entries of every skill a dispatcher holds, by id.
pub fn catalog_entries(dispatcher: &toolwright::Dispatcher) -> Vec<CatalogEntry> {
    let catalog = dispatcher.catalog();
    let mut entries: Vec<CatalogEntry> = dispatcher
        .list_skills()
        .iter()
        .filter_map(|reg| {
            catalog
                .get(reg.id)
                .map(|tool| CatalogEntry::from_registration(reg, tool))
        })
        .collect();
    entries.sort_by(|a, b| a.id.cmp(&b.id));
    entries
}

/// What a sync did (or, for a dry run, would do).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SyncReport {
    /// Ids of rows inserted.
    pub added: Vec<String>,
    /// Ids of rows whose content changed.
    pub changed: Vec<String>,
    /// Ids of rows of skills no longer registered, now disabled.
    pub disabled: Vec<String>,
    /// How many rows were already up to date.
    pub unchanged: usize,
    /// Whether nothing was written.
    pub dry_run: bool,
}

/// The plan of a sync, from the rows already in the table.
fn plan(entries: &[CatalogEntry], existing: &HashMap<String, CatalogEntry>) -> SyncReport {
    let mut report = SyncReport::default();
    let mut registered = std::collections::HashSet::new();
    for entry in entries {
        registered.insert(entry.id.as_str());
        match existing.get(&entry.id) {
            None => report.added.push(entry.id.clone()),
            Some(row) if entry.differs(row) => report.changed.push(entry.id.clone()),
            Some(_) => report.unchanged += 1,
        }
    }
    let mut gone: Vec<String> = existing
        .values()
        .filter(|row| row.enabled && !registered.contains(row.id.as_str()))
        .map(|row| row.id.clone())
        .collect();
    gone.sort();
    report.disabled = gone;
    report
}

/// Writes `entries` to the `skill_catalog` table of the database at `url` (`sqlite://path`
/// or `postgres://…`), creating the table when missing. With `dry_run` nothing is written;
/// the report says what would be.
pub async fn sync_catalog(
    url: &str,
    entries: &[CatalogEntry],
    dry_run: bool,
    now: DateTime<Utc>,
) -> Result<SyncReport, StoreError> {
    if let Some(path) = url.strip_prefix("sqlite://") {
        let (path, entries) = (path.to_string(), entries.to_vec());
        return tokio::task::spawn_blocking(move || sqlite::sync(&path, &entries, dry_run, now))
            .await
            .map_err(|e| StoreError::new(format!("catalog sync task failed: {e}")))?;
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return postgres_sync(url, entries, dry_run, now).await;
    }
    Err(StoreError::new(format!(
        "catalog database {} is neither sqlite://path nor postgres://…",
        redact_url(url)
    )))
}

#[cfg(feature = "postgres")]
async fn postgres_sync(
    url: &str,
    entries: &[CatalogEntry],
    dry_run: bool,
    now: DateTime<Utc>,
) -> Result<SyncReport, StoreError> {
    let (url, schema) = crate::store::take_param(url, "schema");
    let store = crate::store::PgStore::connect_in_schema(
        &url,
        schema.as_deref().unwrap_or(crate::store::DEFAULT_SCHEMA),
    )
    .await?;
    let mut client = store.client().await?;
    let s = store.schema();
    let tx = client.transaction().await?;
    // Syncs from several machines at once take turns.
    tx.execute("SELECT pg_advisory_xact_lock(7231900062)", &[])
        .await?;
    let rows = tx
        .query(
            &format!(
                "SELECT id, name, description, domain, category, status, version, schema_hash,
                        usage_example, enabled
                 FROM {s}.skill_catalog"
            ),
            &[],
        )
        .await?;
    let existing: HashMap<String, CatalogEntry> = rows
        .iter()
        .map(|r| {
            let entry = CatalogEntry {
                id: r.get(0),
                name: r.get(1),
                description: r.get(2),
                domain: r.get(3),
                category: r.get(4),
                status: r.get(5),
                version: r.get(6),
                parameters: Value::Null,
                output_schema: Value::Null,
                schema_hash: r.get(7),
                usage_example: r.get(8),
                enabled: r.get(9),
            };
            (entry.id.clone(), entry)
        })
        .collect();
    let mut report = plan(entries, &existing);
    report.dry_run = dry_run;
    if dry_run {
        return Ok(report);
    }
    let by_id: BTreeMap<&str, &CatalogEntry> = entries.iter().map(|e| (e.id.as_str(), e)).collect();
    let upsert = tx
        .prepare(&upsert_statement(&format!("{s}.skill_catalog")))
        .await?;
    for id in report.added.iter().chain(&report.changed) {
        let e = by_id[id.as_str()];
        tx.execute(
            &upsert,
            &[
                &e.id,
                &e.name,
                &e.description,
                &e.domain,
                &e.category,
                &e.status,
                &e.version,
                &e.parameters,
                &e.output_schema,
                &e.schema_hash,
                &e.usage_example,
                &e.enabled,
                &now,
            ],
        )
        .await?;
    }
    if !report.disabled.is_empty() {
        tx.execute(
            &format!(
                "UPDATE {s}.skill_catalog SET enabled = false, updated_at = $2 WHERE id = ANY($1)"
            ),
            &[&report.disabled, &now],
        )
        .await?;
    }
    tx.commit().await?;
    Ok(report)
}

#[cfg(not(feature = "postgres"))]
async fn postgres_sync(
    url: &str,
    _entries: &[CatalogEntry],
    _dry_run: bool,
    _now: DateTime<Utc>,
) -> Result<SyncReport, StoreError> {
    Err(StoreError::new(format!(
        "catalog database {} needs toolwright-packs built with the `postgres` feature",
        redact_url(url)
    )))
}

/// The statement that writes an entry over its row in catalog table `table` (named with its
/// schema on PostgreSQL): the same text for both engines, SQLite reading `$n` as the n-th
/// parameter too.
fn upsert_statement(table: &str) -> String {
    format!(
        "INSERT INTO {table} (id, name, description, domain, category, status, version,
             parameters, output_schema, schema_hash, usage_example, enabled, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name,
             description = excluded.description, domain = excluded.domain,
             category = excluded.category, status = excluded.status,
             version = excluded.version, parameters = excluded.parameters,
             output_schema = excluded.output_schema, schema_hash = excluded.schema_hash,
             usage_example = excluded.usage_example, enabled = excluded.enabled,
             updated_at = excluded.updated_at"
    )
}

mod sqlite {
    use super::*;
    use rusqlite::{params, Connection};

    const TABLE: &str = "
    CREATE TABLE IF NOT EXISTS skill_catalog (
        id             TEXT PRIMARY KEY,
        name           TEXT NOT NULL,
        description    TEXT NOT NULL,
        domain         TEXT NOT NULL,
        category       TEXT NOT NULL,
        status         TEXT NOT NULL,
        version        TEXT NOT NULL,
        parameters     TEXT NOT NULL,
        output_schema  TEXT NOT NULL,
        schema_hash    TEXT NOT NULL,
        usage_example  TEXT NOT NULL,
        enabled        INTEGER NOT NULL,
        updated_at     TEXT NOT NULL
    );";

    pub(super) fn sync(
        path: &str,
        entries: &[CatalogEntry],
        dry_run: bool,
        now: DateTime<Utc>,
    ) -> Result<SyncReport, StoreError> {
        let mut conn = Connection::open(path).map_err(|e| {
            StoreError::new(format!(
                "cannot open the catalog database sqlite://{path}: {e}"
            ))
        })?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch(TABLE)?;
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let existing: HashMap<String, CatalogEntry> = {
            let mut stmt = tx.prepare(
                "SELECT id, name, description, domain, category, status, version, schema_hash,
                        usage_example, enabled
                 FROM skill_catalog",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok(CatalogEntry {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    description: r.get(2)?,
                    domain: r.get(3)?,
                    category: r.get(4)?,
                    status: r.get(5)?,
                    version: r.get(6)?,
                    parameters: Value::Null,
                    output_schema: Value::Null,
                    schema_hash: r.get(7)?,
                    usage_example: r.get(8)?,
                    enabled: r.get(9)?,
                })
            })?;
            rows.map(|r| r.map(|e| (e.id.clone(), e)))
                .collect::<Result<_, _>>()?
        };
        let mut report = plan(entries, &existing);
        report.dry_run = dry_run;
        if dry_run {
            return Ok(report);
        }
        let by_id: BTreeMap<&str, &CatalogEntry> =
            entries.iter().map(|e| (e.id.as_str(), e)).collect();
        let at = now.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
        {
            let mut upsert = tx.prepare(&upsert_statement("skill_catalog"))?;
            for id in report.added.iter().chain(&report.changed) {
                let e = by_id[id.as_str()];
                upsert.execute(params![
                    e.id,
                    e.name,
                    e.description,
                    e.domain,
                    e.category,
                    e.status,
                    e.version,
                    e.parameters.to_string(),
                    e.output_schema.to_string(),
                    e.schema_hash,
                    e.usage_example,
                    e.enabled,
                    at,
                ])?;
            }
            let mut disable =
                tx.prepare("UPDATE skill_catalog SET enabled = 0, updated_at = ?2 WHERE id = ?1")?;
            for id in &report.disabled {
                disable.execute(params![id, at])?;
            }
        }
        tx.commit()?;
        Ok(report)
    }
}

/// The catalog as Markdown documentation: one section per skill with its parameters and
/// usage example.
pub fn catalog_markdown(dispatcher: &toolwright::Dispatcher) -> String {
    use std::fmt::Write as _;
    let catalog = dispatcher.catalog();
    let mut out = String::from("# Skill catalog\n");
    for entry in catalog_entries(dispatcher) {
        let _ = write!(
            out,
            "\n## `{}` — {}\n\n{}\n\n- domain: `{}`, category: `{}`, status: `{}`{}\n- schema hash: `{}`\n",
            entry.id,
            entry.name,
            entry.description,
            entry.domain,
            entry.category,
            entry.status,
            if entry.version.is_empty() {
                String::new()
            } else {
                format!(", version: `{}`", entry.version)
            },
            &entry.schema_hash[..16],
        );
        if let Some(tool) = catalog.get(&entry.id) {
            if !tool.parameters.is_empty() {
                out.push_str("\n| parameter | kind | required | description | example |\n|---|---|---|---|---|\n");
                for p in &tool.parameters {
                    let _ = writeln!(
                        out,
                        "| `{}` | {} | {} | {} | {} |",
                        p.name,
                        p.value_kind,
                        if p.required { "yes" } else { "no" },
                        p.description.replace('|', "\\|").replace('\n', " "),
                        p.example
                            .as_ref()
                            .map(|e| format!("`{}`", e.to_string().replace('|', "\\|")))
                            .unwrap_or_default()
                    );
                }
            }
        }
        let _ = write!(out, "\n{}\n", entry.usage_example);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(id: &str, description: &str) -> CatalogEntry {
        let parameters = json!({"type": "object", "properties": {"x": {"type": "integer"}}});
        let output_schema = json!({"type": "integer"});
        CatalogEntry {
            id: id.into(),
            name: id.into(),
            description: description.into(),
            domain: "test".into(),
            category: "query".into(),
            status: "active".into(),
            version: "1.0.0".into(),
            schema_hash: schema_hash(&parameters, &output_schema),
            parameters,
            output_schema,
            usage_example: format!("```tool_call\n{{\"toolId\":\"{id}\",\"params\":{{}}}}\n```"),
            enabled: true,
        }
    }

    #[tokio::test]
    async fn sqlite_sync_adds_changes_disables_and_leaves_the_rest_untouched() {
        let path = std::env::temp_dir().join(format!(
            "skill-catalog-{}-{}.db",
            std::process::id(),
            Utc::now().timestamp_nanos_opt().unwrap_or_default()
        ));
        let url = format!("sqlite://{}", path.display());
        let t0 = Utc::now();
        let first = [entry("a.one", "One"), entry("a.two", "Two")];
        let report = sync_catalog(&url, &first, false, t0).await.unwrap();
        assert_eq!(report.added, ["a.one", "a.two"]);
        let again = sync_catalog(&url, &first, false, t0).await.unwrap();
        assert_eq!(
            (again.unchanged, again.added.len(), again.changed.len()),
            (2, 0, 0)
        );
        let t1 = t0 + chrono::Duration::seconds(5);
        let second = [entry("a.one", "One, better"), entry("a.three", "Three")];
        let dry = sync_catalog(&url, &second, true, t1).await.unwrap();
        assert!(dry.dry_run);
        assert_eq!(
            (dry.added.clone(), dry.changed.clone(), dry.disabled.clone()),
            (
                vec!["a.three".to_string()],
                vec!["a.one".to_string()],
                vec!["a.two".to_string()]
            )
        );
        // The dry run wrote nothing: the real run finds the same.
        let report = sync_catalog(&url, &second, false, t1).await.unwrap();
        assert_eq!(
            (report.added, report.changed, report.disabled),
            (dry.added, dry.changed, dry.disabled)
        );
        let conn = rusqlite::Connection::open(&path).unwrap();
        let rows: Vec<(String, bool, String)> = conn
            .prepare("SELECT id, enabled, updated_at FROM skill_catalog ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let stamp = |t: DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
        assert_eq!(
            rows,
            [
                ("a.one".to_string(), true, stamp(t1)),
                ("a.three".to_string(), true, stamp(t1)),
                ("a.two".to_string(), false, stamp(t1)),
            ]
        );
        // Disabled stays disabled, and is not reported again.
        let third = sync_catalog(&url, &second, false, t1).await.unwrap();
        assert!(third.disabled.is_empty() && third.added.is_empty() && third.changed.is_empty());
        let _ = std::fs::remove_file(&path);
    }

    #[tokio::test]
    async fn an_unknown_database_is_refused_with_its_url() {
        let err = sync_catalog("mysql://u:pw@h/db", &[], false, Utc::now())
            .await
            .unwrap_err();
        assert!(
            err.message.contains("mysql://u:***@h/db"),
            "{}",
            err.message
        );
    }
}
