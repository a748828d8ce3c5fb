//! Choosing the stores by URL: `sqlite://path`, `postgres://…`, `redis://…`.

use std::sync::Arc;

use super::{
    AuditLog, AuditedQuotaStore, ConfirmationStore, QuotaStore, SqliteStore, StateStore,
    StoreError, SubscriptionStore, DEFAULT_PREFIX, DEFAULT_SCHEMA,
};

/// `url` with its password (if any) replaced by `***`, for messages and logs.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let Some((userinfo, host)) = authority.rsplit_once('@') else {
        return url.to_string();
    };
    match userinfo.split_once(':') {
        Some((user, _password)) => format!("{scheme}://{user}:***@{host}{tail}"),
        None => url.to_string(),
    }
}

/// The stores of a gateway and of the servers sharing its database, chosen by URL.
///
/// | URL | subscriptions, audit, state, parked calls | quotas |
/// |---|---|---|
/// | `sqlite://path` (or a bare path) | SQLite file | SQLite file |
/// | `postgres://…` / `postgresql://…` | PostgreSQL | PostgreSQL |
/// | `redis://…` | — (quotas only) | Redis |
///
/// A `schema=NAME` query parameter on a PostgreSQL URL puts the tables in that schema; a
/// `prefix=TEXT` one on a Redis URL prefixes the keys.
#[derive(Clone)]
pub struct Stores {
    /// Where subscriptions live.
    pub subscriptions: Arc<dyn SubscriptionStore>,
    /// Where quota counters live.
    pub quotas: Arc<dyn QuotaStore>,
    /// Where audit records go.
    pub audit: Arc<dyn AuditLog>,
    /// Where pack state lives.
    pub state: Arc<dyn StateStore>,
    /// Where calls parked for a person's consent wait, for every server on the store.
    pub confirmations: Arc<dyn ConfirmationStore>,
    /// Quotas and audit in one database (SQLite, PostgreSQL): a quota unit and its audit
    /// record in one transaction. `None` when quotas live elsewhere (Redis).
    pub audited_quotas: Option<Arc<dyn AuditedQuotaStore>>,
    /// Where durable runs (reviews) are recorded, resumed and listed.
    pub runs: Arc<dyn toolwright::runs::RunStore>,
    /// The URLs, passwords hidden: (main store, quota store).
    pub urls: (String, String),
}

impl std::fmt::Debug for Stores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stores").field("urls", &self.urls).finish()
    }
}

/// The engine a URL names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Engine {
    Sqlite(String),
    Postgres { url: String, schema: String },
    Redis { url: String, prefix: String },
}

/// Takes `name=value` out of the query of `url`.
pub(crate) fn take_param(url: &str, name: &str) -> (String, Option<String>) {
    let Some((base, query)) = url.split_once('?') else {
        return (url.to_string(), None);
    };
    let mut found = None;
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| match pair.split_once('=') {
            Some((k, v)) if k == name => {
                found = Some(v.to_string());
                false
            }
            _ => true,
        })
        .collect();
    let url = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    (url, found)
}

fn engine_of(url: &str) -> Result<Engine, StoreError> {
    if let Some(path) = url.strip_prefix("sqlite://") {
        if path.is_empty() {
            return Err(StoreError::new(
                "`sqlite://` names no file; expected sqlite://path/to/file.db",
            ));
        }
        return Ok(Engine::Sqlite(path.to_string()));
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let (url, schema) = take_param(url, "schema");
        return Ok(Engine::Postgres {
            url,
            schema: schema.unwrap_or_else(|| DEFAULT_SCHEMA.into()),
        });
    }
    if url.starts_with("redis://") || url.starts_with("rediss://") {
        let (url, prefix) = take_param(url, "prefix");
        return Ok(Engine::Redis {
            url,
            prefix: prefix.unwrap_or_else(|| DEFAULT_PREFIX.into()),
        });
    }
    if let Some((scheme, _)) = url.split_once("://") {
        return Err(StoreError::new(format!(
            "store URL {} has the unknown scheme `{scheme}`; expected sqlite://, postgres:// or redis://",
            redact_url(url)
        )));
    }
    Ok(Engine::Sqlite(url.to_string()))
}

#[cfg(any(not(feature = "postgres"), not(feature = "redis")))]
fn not_built(url: &str, feature: &str) -> StoreError {
    StoreError::new(format!(
        "store URL {} needs toolwright-packs built with the `{feature}` feature",
        redact_url(url)
    ))
}

impl Stores {
    /// Every store in one SQLite database.
    pub fn sqlite(store: SqliteStore) -> Self {
        let url = store.path().map_or_else(
            || "sqlite::memory:".into(),
            |p| format!("sqlite://{}", p.display()),
        );
        Self::all_in(Arc::new(store), url)
    }

    /// Every store in one database, `store`, shown as `url`.
    fn all_in<S>(store: Arc<S>, url: String) -> Self
    where
        S: SubscriptionStore
            + QuotaStore
            + AuditLog
            + StateStore
            + ConfirmationStore
            + AuditedQuotaStore
            + toolwright::runs::RunStore
            + 'static,
    {
        Self {
            subscriptions: store.clone(),
            quotas: store.clone(),
            audit: store.clone(),
            state: store.clone(),
            confirmations: store.clone(),
            runs: store.clone(),
            audited_quotas: Some(store),
            urls: (url.clone(), url),
        }
    }

    /// Opens the stores `url` names; quotas go to `quota_url` when given (typically
    /// `redis://…`), else to the main store.
    ///
    /// The main store must hold subscriptions and the audit log, so it is SQLite or
    /// PostgreSQL; a Redis URL is accepted for quotas only. Each server is reached once here:
    /// one that does not answer is an error naming its URL, password hidden.
    pub async fn connect(url: &str, quota_url: Option<&str>) -> Result<Self, StoreError> {
        let mut stores = Self::open_main(url).await?;
        if let Some(quota_url) = quota_url {
            stores.quotas = quota_store(quota_url).await?;
            // Quotas in another database: no transaction holds a unit and its record.
            stores.audited_quotas = None;
            stores.urls.1 = redact_url(quota_url);
        }
        Ok(stores)
    }

    async fn open_main(url: &str) -> Result<Self, StoreError> {
        Ok(match engine_of(url)? {
            Engine::Sqlite(path) => {
                let path = path.clone();
                let store = tokio::task::spawn_blocking(move || SqliteStore::open(&path))
                    .await
                    .map_err(|e| StoreError::new(format!("opening SQLite failed: {e}")))?
                    .map_err(|e| StoreError::cannot_open("SQLite", url, e))?;
                Self::sqlite(store)
            }
            Engine::Postgres { url: pg, schema } => Self::postgres(&pg, &schema).await?,
            Engine::Redis { .. } => {
                return Err(StoreError::new(format!(
                    "{} holds quota counters only; give a sqlite:// or postgres:// URL for subscriptions and the audit log, and the Redis URL for quotas",
                    redact_url(url)
                )))
            }
        })
    }

    #[cfg(feature = "postgres")]
    async fn postgres(url: &str, schema: &str) -> Result<Self, StoreError> {
        let store = super::PgStore::connect_in_schema(url, schema).await?;
        Ok(Self::all_in(Arc::new(store), redact_url(url)))
    }

    #[cfg(not(feature = "postgres"))]
    async fn postgres(url: &str, _schema: &str) -> Result<Self, StoreError> {
        Err(not_built(url, "postgres"))
    }
}

/// The quota store `url` names.
async fn quota_store(url: &str) -> Result<Arc<dyn QuotaStore>, StoreError> {
    match engine_of(url)? {
        Engine::Redis { url, prefix } => redis_store(&url, &prefix).await,
        _ => Ok(Stores::open_main(url).await?.quotas),
    }
}

#[cfg(feature = "redis")]
async fn redis_store(url: &str, prefix: &str) -> Result<Arc<dyn QuotaStore>, StoreError> {
    Ok(Arc::new(
        super::RedisQuotaStore::connect_with_prefix(url, prefix).await?,
    ))
}

#[cfg(not(feature = "redis"))]
async fn redis_store(url: &str, _prefix: &str) -> Result<Arc<dyn QuotaStore>, StoreError> {
    Err(not_built(url, "redis"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_hidden() {
        assert_eq!(
            redact_url("postgres://app:s3cret@db.internal:5432/test"),
            "postgres://app:***@db.internal:5432/test"
        );
        assert_eq!(
            redact_url("redis://:pw@127.0.0.1:6379/0"),
            "redis://:***@127.0.0.1:6379/0"
        );
        assert_eq!(
            redact_url("postgres://root@127.0.0.1/test"),
            "postgres://root@127.0.0.1/test"
        );
        assert_eq!(redact_url("sqlite://a.db"), "sqlite://a.db");
    }

    #[test]
    fn engines_are_chosen_by_scheme() {
        assert_eq!(
            engine_of("sqlite://x/y.db").unwrap(),
            Engine::Sqlite("x/y.db".into())
        );
        assert_eq!(engine_of("y.db").unwrap(), Engine::Sqlite("y.db".into()));
        assert_eq!(
            engine_of("postgres://h/db?schema=s1&sslmode=disable").unwrap(),
            Engine::Postgres {
                url: "postgres://h/db?sslmode=disable".into(),
                schema: "s1".into()
            }
        );
        assert_eq!(
            engine_of("redis://h:6379?prefix=t1:").unwrap(),
            Engine::Redis {
                url: "redis://h:6379".into(),
                prefix: "t1:".into()
            }
        );
        let err = engine_of("mysql://u:pw@h/db").unwrap_err();
        assert!(
            err.message.contains("mysql://u:***@h/db"),
            "{}",
            err.message
        );
        assert!(err.message.contains("unknown scheme `mysql`"));
        assert!(engine_of("sqlite://").is_err());
    }

    #[tokio::test]
    async fn redis_cannot_hold_subscriptions() {
        let err = Stores::connect("redis://:pw@127.0.0.1:1", None)
            .await
            .unwrap_err();
        assert!(
            err.message.contains("quota counters only"),
            "{}",
            err.message
        );
        assert!(err.message.contains(":***@"), "{}", err.message);
    }
}
