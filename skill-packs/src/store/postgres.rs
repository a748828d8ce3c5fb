//! All four stores in PostgreSQL (feature `postgres`), for gateways on several machines.
//!
//! A pool of connections (deadpool) over tokio-postgres. The schema is created by the
//! migrations this crate ships (`migrations/postgres/*.sql`), applied in order under an
//! advisory lock when the store opens, so several processes starting together do not race.
//! A quota check is one `INSERT … ON CONFLICT DO UPDATE … WHERE used < max RETURNING`
//! statement: the row lock makes concurrent checks from any number of processes exact,
//! without a read-modify-write. The audit table is append-only (a trigger refuses updates,
//! deletes and truncation).

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use serde_json::Value;
use tokio_postgres::NoTls;

use super::parked::{confirmation_store, shared_id, ParkedCalls};
use super::{
    subscription_holds, AuditId, AuditLog, AuditQuery, AuditRecord, AuditedQuotaStore,
    QuotaDecision, QuotaRequest, QuotaStore, StateStore, StoreError, StoredConfirmation,
    SubscriptionStore, DEFAULT_SCHEMA, STARTED_OUTCOME,
};
use crate::rate::Window;

mod runs;

/// The migrations, in order: (version, SQL with `{schema}` for the schema name).
pub(crate) const MIGRATIONS: &[(i32, &str)] = &[
    (1, include_str!("../../migrations/postgres/0001_packs.sql")),
    (
        2,
        include_str!("../../migrations/postgres/0002_skill_catalog.sql"),
    ),
    (
        3,
        include_str!("../../migrations/postgres/0003_shared_servers.sql"),
    ),
    (4, include_str!("../../migrations/postgres/0004_runs.sql")),
];

/// How long to wait for a connection before a call is refused.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// What the server or the connection said, in full: a server error's SQLSTATE code and
/// message (`3D000: database "x" does not exist`) rather than tokio-postgres's bare "db
/// error", and a connection error with its causes ("error connecting to server: Connection
/// refused (os error 111)").
fn postgres_cause(err: &tokio_postgres::Error) -> String {
    if let Some(db) = err.as_db_error() {
        return format!("{}: {}", db.code().code(), db.message());
    }
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(err: tokio_postgres::Error) -> Self {
        Self {
            message: postgres_cause(&err),
            source: Some(Box::new(err)),
        }
    }
}

impl From<deadpool_postgres::PoolError> for StoreError {
    fn from(err: deadpool_postgres::PoolError) -> Self {
        use deadpool_postgres::PoolError;
        let cause = match &err {
            PoolError::Backend(backend) => postgres_cause(backend),
            PoolError::Timeout(_) => {
                format!("no answer within {} s ({err})", CONNECT_TIMEOUT.as_secs())
            }
            other => other.to_string(),
        };
        Self {
            message: format!("no database connection: {cause}"),
            source: Some(Box::new(err)),
        }
    }
}

/// Subscriptions, quotas, audit log and pack state in PostgreSQL.
///
/// Cheap to clone (clones share the pool). Every table lives in one schema (`public`
/// unless opened with [`PgStore::connect_in_schema`]).
#[derive(Clone)]
pub struct PgStore {
    pool: Pool,
    schema: String,
    url: String,
    sql: std::sync::Arc<Statements>,
}

/// The columns of a parked call, in the order [`read_confirmation`] reads them.
const PENDING_COLUMNS: &str = "id, skill_id, arguments, summary, from_state, parked_at, expires_at";

fn read_confirmation(r: &tokio_postgres::Row) -> StoredConfirmation {
    StoredConfirmation {
        id: shared_id(r.get(0)),
        skill_id: r.get(1),
        arguments: r.get(2),
        summary: r.get(3),
        from_state: r.get(4),
        parked_at: r.get(5),
        expires_at: r.get(6),
    }
}

/// The statements, with the schema filled in once.
struct Statements {
    is_subscribed: String,
    subscribe: String,
    unsubscribe: String,
    acquire: String,
    used: String,
    purge: String,
    record: String,
    outcome: String,
    query: String,
    save: String,
    read: String,
    park: String,
    forget_expired: String,
    take: String,
    find: String,
    pending: String,
    expired: String,
}

impl Statements {
    fn new(s: &str) -> Self {
        Self {
            is_subscribed: format!(
                "SELECT until_at FROM {s}.pack_subscriptions WHERE user_id = $1 AND pack = $2"
            ),
            subscribe: format!(
                "INSERT INTO {s}.pack_subscriptions (user_id, pack, until_at) VALUES ($1, $2, $3)
                 ON CONFLICT (user_id, pack) DO UPDATE SET until_at = excluded.until_at"
            ),
            unsubscribe: format!(
                "DELETE FROM {s}.pack_subscriptions WHERE user_id = $1 AND pack = $2"
            ),
            acquire: format!(
                "INSERT INTO {s}.pack_quota AS q (user_id, tool, window_start, window_end, used)
                 VALUES ($1, $2, $3, $4, 1)
                 ON CONFLICT (user_id, tool, window_start) DO UPDATE SET used = q.used + 1
                 WHERE q.used < $5
                 RETURNING used"
            ),
            used: format!(
                "SELECT used FROM {s}.pack_quota
                 WHERE user_id = $1 AND tool = $2 AND window_start = $3"
            ),
            purge: format!("DELETE FROM {s}.pack_quota WHERE window_end <= $1"),
            record: format!(
                "INSERT INTO {s}.pack_audit
                 (consumer, provider, tool, user_id, at, outcome, message, duration_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
            ),
            outcome: format!(
                "INSERT INTO {s}.pack_audit_outcome (audit_id, outcome, message, duration_ms)
                 VALUES ($1, $2, $3, $4)"
            ),
            query: format!(
                "SELECT a.consumer, a.provider, a.tool, a.user_id, a.at,
                        COALESCE(o.outcome, a.outcome),
                        CASE WHEN o.audit_id IS NULL THEN a.message ELSE o.message END,
                        COALESCE(o.duration_ms, a.duration_ms)
                 FROM {s}.pack_audit a LEFT JOIN {s}.pack_audit_outcome o ON o.audit_id = a.id
                 WHERE ($1::text IS NULL OR a.consumer = $1) AND ($2::text IS NULL OR a.provider = $2)
                   AND ($3::text IS NULL OR a.user_id = $3)
                 ORDER BY a.id DESC
                 LIMIT $4"
            ),
            park: format!(
                "INSERT INTO {s}.pending_confirmations
                 (skill_id, arguments, summary, from_state, parked_at, expires_at)
                 VALUES ($1, $2, $3, $4, $5, $6) RETURNING id"
            ),
            forget_expired: format!("DELETE FROM {s}.pending_confirmations WHERE expires_at < $1"),
            take: format!(
                "DELETE FROM {s}.pending_confirmations WHERE id = $1 AND expires_at > $2
                 RETURNING {PENDING_COLUMNS}"
            ),
            find: format!("SELECT {PENDING_COLUMNS} FROM {s}.pending_confirmations WHERE id = $1"),
            pending: format!(
                "SELECT {PENDING_COLUMNS} FROM {s}.pending_confirmations
                 WHERE expires_at > $1 ORDER BY id"
            ),
            expired: format!(
                "SELECT {PENDING_COLUMNS} FROM {s}.pending_confirmations
                 WHERE expires_at <= $1 ORDER BY expires_at DESC, id DESC LIMIT $2"
            ),
            save: format!(
                "INSERT INTO {s}.pack_state (user_id, path, value) VALUES ($1, $2, $3)
                 ON CONFLICT (user_id, path) DO UPDATE SET value = excluded.value"
            ),
            read: format!("SELECT value FROM {s}.pack_state WHERE user_id = $1 AND path = $2"),
        }
    }
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("url", &self.url)
            .field("schema", &self.schema)
            .finish()
    }
}

impl PgStore {
    /// Connects to the database at `url` (`postgres://user:pass@host:port/db`), checks that
    /// it answers, and applies the shipped migrations to schema `public`.
    ///
    /// A server that does not answer within 3 s is an error naming the URL (password
    /// hidden).
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_in_schema(url, DEFAULT_SCHEMA).await
    }

    /// Like [`PgStore::connect`], with every table in `schema` (created if missing):
    /// several deployments, or tests, can share one database.
    pub async fn connect_in_schema(url: &str, schema: &str) -> Result<Self, StoreError> {
        let shown = super::redact_url(url);
        if schema.is_empty()
            || !schema
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(StoreError::new(format!(
                "schema `{schema}` for {shown}: expected letters, digits and `_` only"
            )));
        }
        let mut config: tokio_postgres::Config = url.parse().map_err(|e| {
            StoreError::not_a_url(
                &shown,
                "PostgreSQL",
                e,
                "postgres://user:password@host:port/database",
            )
        })?;
        config.connect_timeout(CONNECT_TIMEOUT);
        if config.get_application_name().is_none() {
            config.application_name("toolwright");
        }
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(16)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(CONNECT_TIMEOUT))
            .create_timeout(Some(CONNECT_TIMEOUT))
            .recycle_timeout(Some(CONNECT_TIMEOUT))
            .build()
            .map_err(|e| StoreError::new(format!("cannot set up a pool for {shown}: {e}")))?;
        let store = Self {
            pool,
            schema: schema.to_string(),
            url: shown.clone(),
            sql: std::sync::Arc::new(Statements::new(schema)),
        };
        store
            .migrate()
            .await
            .map_err(|e| StoreError::cannot_open("PostgreSQL", &shown, e))?;
        Ok(store)
    }

    /// The schema holding the tables.
    pub fn schema(&self) -> &str {
        &self.schema
    }

    /// The URL the store was opened on, password hidden.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A connection from the pool (for tools sharing the database, such as the catalog).
    pub async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        Ok(self.pool.get().await?)
    }

    /// Applies the migrations not applied yet, in one transaction under an advisory lock.
    async fn migrate(&self) -> Result<(), StoreError> {
        let mut client = self.pool.get().await?;
        let s = &self.schema;
        let tx = client.transaction().await?;
        // One lock for every process migrating this database at the same time.
        tx.execute("SELECT pg_advisory_xact_lock(7231900061)", &[])
            .await?;
        tx.batch_execute(&format!(
            "CREATE SCHEMA IF NOT EXISTS {s};
             CREATE TABLE IF NOT EXISTS {s}.toolwright_migrations (
                 version    INTEGER PRIMARY KEY,
                 applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
             );"
        ))
        .await?;
        let applied: Vec<i32> = tx
            .query(
                &format!("SELECT version FROM {s}.toolwright_migrations"),
                &[],
            )
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
        for (version, sql) in MIGRATIONS {
            if applied.contains(version) {
                continue;
            }
            tx.batch_execute(&sql.replace("{schema}", s))
                .await
                .map_err(|e| {
                    let err = StoreError::from(e);
                    StoreError::new(format!("migration {version} failed: {}", err.message))
                })?;
            tx.execute(
                &format!("INSERT INTO {s}.toolwright_migrations (version) VALUES ($1)"),
                &[version],
            )
            .await?;
            tracing::info!(version, schema = %s, "applied migration");
        }
        tx.commit().await?;
        Ok(())
    }

    /// Deletes quota windows that ended at or before `now`; returns how many.
    pub async fn purge_quota_windows(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        let client = self.pool.get().await?;
        Ok(client.execute(&self.sql.purge, &[&now.timestamp()]).await?)
    }
}

#[async_trait]
impl SubscriptionStore for PgStore {
    async fn is_subscribed(
        &self,
        user: &str,
        pack: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let client = self.pool.get().await?;
        let row = client
            .query_opt(&self.sql.is_subscribed, &[&user, &pack])
            .await?;
        Ok(row.is_some_and(|row| subscription_holds(row.get(0), now)))
    }

    async fn subscribe(
        &self,
        user: &str,
        pack: &str,
        until: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        let client = self.pool.get().await?;
        client
            .execute(&self.sql.subscribe, &[&user, &pack, &until])
            .await?;
        Ok(())
    }

    async fn unsubscribe(&self, user: &str, pack: &str) -> Result<(), StoreError> {
        let client = self.pool.get().await?;
        client
            .execute(&self.sql.unsubscribe, &[&user, &pack])
            .await?;
        Ok(())
    }
}

impl PgStore {
    /// Counts one call through `client` in the counter `key` of the window that holds `now`
    /// if it has room; the count after it, or `None` when the counter is full.
    async fn count_call(
        &self,
        client: &impl tokio_postgres::GenericClient,
        user: &str,
        key: &str,
        max: u32,
        window: Window,
        now: DateTime<Utc>,
    ) -> Result<Option<u32>, StoreError> {
        if max == 0 {
            return Ok(None);
        }
        let start = window.start_of(now);
        let end = start + window.seconds();
        let max = i32::try_from(max).unwrap_or(i32::MAX);
        let row = client
            .query_opt(&self.sql.acquire, &[&user, &key, &start, &end, &max])
            .await?;
        Ok(row.map(|r| r.get::<_, i32>(0) as u32))
    }

    /// In `tx`: counts the call in every limit of `requests`. When one is full, rolls `tx`
    /// back, so a refused call is counted nowhere, and returns its index.
    async fn count_all<'a>(
        &self,
        tx: deadpool_postgres::Transaction<'a>,
        user: &str,
        requests: &[QuotaRequest<'_>],
        now: DateTime<Utc>,
    ) -> Result<Result<deadpool_postgres::Transaction<'a>, usize>, StoreError> {
        for (i, r) in requests.iter().enumerate() {
            let used = self
                .count_call(&*tx, user, r.key, r.max, r.window, now)
                .await?;
            if used.is_none() {
                tx.rollback().await?;
                return Ok(Err(i));
            }
        }
        Ok(Ok(tx))
    }
}

#[async_trait]
impl QuotaStore for PgStore {
    async fn try_acquire(
        &self,
        user: &str,
        tool: &str,
        max: u32,
        window: Window,
        now: DateTime<Utc>,
    ) -> Result<QuotaDecision, StoreError> {
        if max == 0 {
            return Ok(QuotaDecision::Exhausted);
        }
        let client = self.pool.get().await?;
        let used = self
            .count_call(&**client, user, tool, max, window, now)
            .await?;
        let decision = QuotaDecision::of(used);
        if decision == (QuotaDecision::Admitted { used: 1 }) {
            // A new window opened: the ended ones are of no more use.
            client.execute(&self.sql.purge, &[&now.timestamp()]).await?;
        }
        Ok(decision)
    }

    async fn try_acquire_all(
        &self,
        user: &str,
        requests: &[QuotaRequest<'_>],
        now: DateTime<Utc>,
    ) -> Result<Option<usize>, StoreError> {
        if let [one] = requests {
            let decision = self
                .try_acquire(user, one.key, one.max, one.window, now)
                .await?;
            return Ok((decision == QuotaDecision::Exhausted).then_some(0));
        }
        // Several limits: one transaction, rolled back when any is full, so a refused call
        // is counted nowhere.
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        let counted = self.count_all(tx, user, requests, now).await?;
        match counted {
            Ok(tx) => {
                tx.commit().await?;
                Ok(None)
            }
            Err(full) => Ok(Some(full)),
        }
    }

    async fn used(
        &self,
        user: &str,
        tool: &str,
        window: Window,
        now: DateTime<Utc>,
    ) -> Result<u32, StoreError> {
        let client = self.pool.get().await?;
        let row = client
            .query_opt(&self.sql.used, &[&user, &tool, &window.start_of(now)])
            .await?;
        Ok(row.map_or(0, |r| r.get::<_, i32>(0) as u32))
    }
}

#[async_trait]
impl AuditLog for PgStore {
    async fn record(&self, r: &AuditRecord) -> Result<(), StoreError> {
        let client = self.pool.get().await?;
        client
            .execute(
                &self.sql.record,
                &[
                    &r.consumer,
                    &r.provider,
                    &r.tool,
                    &r.user,
                    &r.at,
                    &r.outcome,
                    &r.message,
                    &r.duration_ms,
                ],
            )
            .await?;
        Ok(())
    }

    async fn start(&self, r: &AuditRecord) -> Result<Option<AuditId>, StoreError> {
        let client = self.pool.get().await?;
        Ok(Some(
            append_audit(&**client, &self.sql, r, STARTED_OUTCOME).await?,
        ))
    }

    async fn finish(&self, id: Option<AuditId>, r: &AuditRecord) -> Result<(), StoreError> {
        let Some(id) = id else {
            return self.record(r).await;
        };
        let client = self.pool.get().await?;
        client
            .execute(
                &self.sql.outcome,
                &[&id, &r.outcome, &r.message, &r.duration_ms],
            )
            .await?;
        Ok(())
    }

    async fn query(&self, q: &AuditQuery) -> Result<Vec<AuditRecord>, StoreError> {
        let client = self.pool.get().await?;
        let limit = q.limit.map(|l| i64::try_from(l).unwrap_or(i64::MAX));
        let rows = client
            .query(
                &self.sql.query,
                &[&q.consumer, &q.provider, &q.user, &limit],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|r| AuditRecord {
                consumer: r.get(0),
                provider: r.get(1),
                tool: r.get(2),
                user: r.get(3),
                at: r.get(4),
                outcome: r.get(5),
                message: r.get(6),
                duration_ms: r.get(7),
                unreadable: None,
            })
            .collect())
    }
}

/// Appends `r` (with `outcome` in place of its own) through `client`; its id.
async fn append_audit(
    client: &impl tokio_postgres::GenericClient,
    sql: &Statements,
    r: &AuditRecord,
    outcome: &str,
) -> Result<AuditId, StoreError> {
    let row = client
        .query_one(
            &format!("{} RETURNING id", sql.record),
            &[
                &r.consumer,
                &r.provider,
                &r.tool,
                &r.user,
                &r.at,
                &outcome,
                &r.message,
                &r.duration_ms,
            ],
        )
        .await?;
    Ok(row.get(0))
}

#[async_trait]
impl AuditedQuotaStore for PgStore {
    /// The counts and the record in one transaction, rolled back when a limit is full.
    async fn admit_and_audit(
        &self,
        user: &str,
        requests: &[QuotaRequest<'_>],
        now: DateTime<Utc>,
        record: &AuditRecord,
    ) -> Result<Result<AuditId, usize>, StoreError> {
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        let tx = match self.count_all(tx, user, requests, now).await? {
            Ok(tx) => tx,
            Err(full) => return Ok(Err(full)),
        };
        let id = append_audit(&*tx, &self.sql, record, STARTED_OUTCOME).await?;
        tx.commit().await?;
        Ok(Ok(id))
    }
}

#[async_trait]
impl ParkedCalls for PgStore {
    async fn insert(
        &self,
        call: &StoredConfirmation,
        forget_before: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let client = self.pool.get().await?;
        client
            .execute(&self.sql.forget_expired, &[&forget_before])
            .await?;
        let row = client
            .query_one(
                &self.sql.park,
                &[
                    &call.skill_id,
                    &call.arguments,
                    &call.summary,
                    &call.from_state,
                    &call.parked_at,
                    &call.expires_at,
                ],
            )
            .await?;
        Ok(row.get(0))
    }

    async fn remove_live(
        &self,
        n: i64,
        now: DateTime<Utc>,
    ) -> Result<Option<StoredConfirmation>, StoreError> {
        let client = self.pool.get().await?;
        let row = client.query_opt(&self.sql.take, &[&n, &now]).await?;
        Ok(row.as_ref().map(read_confirmation))
    }

    async fn find(&self, n: i64) -> Result<Option<StoredConfirmation>, StoreError> {
        let client = self.pool.get().await?;
        let row = client.query_opt(&self.sql.find, &[&n]).await?;
        Ok(row.as_ref().map(read_confirmation))
    }

    async fn live(&self, now: DateTime<Utc>) -> Result<Vec<StoredConfirmation>, StoreError> {
        let client = self.pool.get().await?;
        let rows = client.query(&self.sql.pending, &[&now]).await?;
        Ok(rows.iter().map(read_confirmation).collect())
    }

    async fn lapsed(
        &self,
        now: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<StoredConfirmation>, StoreError> {
        let client = self.pool.get().await?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = client.query(&self.sql.expired, &[&now, &limit]).await?;
        Ok(rows.iter().map(read_confirmation).collect())
    }
}

confirmation_store!(PgStore);

#[async_trait]
impl StateStore for PgStore {
    async fn save(&self, user: &str, path: &str, value: &Value) -> Result<(), StoreError> {
        let client = self.pool.get().await?;
        client
            .execute(&self.sql.save, &[&user, &path, value])
            .await?;
        Ok(())
    }

    async fn read(&self, user: &str, path: &str) -> Result<Option<Value>, StoreError> {
        let client = self.pool.get().await?;
        let row = client.query_opt(&self.sql.read, &[&user, &path]).await?;
        Ok(row.map(|r| r.get::<_, Value>(0)))
    }
}
