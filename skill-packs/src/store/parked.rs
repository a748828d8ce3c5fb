//! The shared consent queue (`toolwright`'s [`ConfirmationStore`]) as the SQLite and
//! PostgreSQL stores keep it: the ids they give, how long expired calls stay, and when a call
//! is taken, expired or unknown are decided here once; each engine only reads and writes its
//! table ([`ParkedCalls`]), and [`confirmation_store!`] makes the queue of it.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{
    ConfirmationStoreError, StoreError, StoredConfirmation, TakenConfirmation,
    SHARED_CONFIRMATION_PREFIX,
};

/// How long expired calls stay listed before parking removes them.
const EXPIRED_KEPT_FOR: chrono::TimeDelta = chrono::TimeDelta::days(1);

/// The id a store gives the parked call numbered `n`.
pub(super) fn shared_id(n: i64) -> String {
    format!("{SHARED_CONFIRMATION_PREFIX}{n}")
}

/// The number in a store's id, or `None` for an id no store gave.
fn shared_number(id: &str) -> Option<i64> {
    id.strip_prefix(SHARED_CONFIRMATION_PREFIX)?
        .parse()
        .ok()
        .filter(|n| *n > 0)
}

/// The table of parked calls, as one engine reads and writes it (calls by number, ids
/// already given with [`shared_id`]).
#[async_trait]
pub(super) trait ParkedCalls: Send + Sync {
    /// Deletes the calls that expired before `forget_before`, then appends `call`; its number.
    async fn insert(
        &self,
        call: &StoredConfirmation,
        forget_before: DateTime<Utc>,
    ) -> Result<i64, StoreError>;
    /// Deletes and returns call `n` if it has not expired at `now`, atomically.
    async fn remove_live(
        &self,
        n: i64,
        now: DateTime<Utc>,
    ) -> Result<Option<StoredConfirmation>, StoreError>;
    /// Call `n`, expired or not.
    async fn find(&self, n: i64) -> Result<Option<StoredConfirmation>, StoreError>;
    /// The calls not expired at `now`, oldest first.
    async fn live(&self, now: DateTime<Utc>) -> Result<Vec<StoredConfirmation>, StoreError>;
    /// The calls expired at `now`, newest first, at most `limit`.
    async fn lapsed(
        &self,
        now: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<StoredConfirmation>, StoreError>;
}

/// Runs one operation of the queue, its failure as the queue reads it.
pub(super) async fn consent_op<T>(
    op: impl std::future::Future<Output = Result<T, StoreError>>,
) -> Result<T, ConfirmationStoreError> {
    op.await.map_err(Into::into)
}

/// Parks `call`, first forgetting the calls expired for longer than [`EXPIRED_KEPT_FOR`].
pub(super) async fn park(
    store: &impl ParkedCalls,
    call: &StoredConfirmation,
) -> Result<String, StoreError> {
    let n = store
        .insert(call, call.parked_at - EXPIRED_KEPT_FOR)
        .await?;
    Ok(shared_id(n))
}

/// Takes call `id` at `now`: taken when it waits, else expired when it is still kept, else
/// unknown (an id no store gave among them).
pub(super) async fn take(
    store: &impl ParkedCalls,
    id: &str,
    now: DateTime<Utc>,
) -> Result<TakenConfirmation, StoreError> {
    let Some(n) = shared_number(id) else {
        return Ok(TakenConfirmation::Unknown);
    };
    if let Some(call) = store.remove_live(n, now).await? {
        return Ok(TakenConfirmation::Taken(call));
    }
    Ok(match store.find(n).await? {
        Some(call) => TakenConfirmation::Expired(call),
        None => TakenConfirmation::Unknown,
    })
}

/// Implements `toolwright`'s `ConfirmationStore` for a store that implements
/// [`ParkedCalls`], with the rules of this module.
macro_rules! confirmation_store {
    ($store:ty) => {
        #[async_trait::async_trait]
        impl $crate::store::ConfirmationStore for $store {
            async fn park(
                &self,
                call: &$crate::store::StoredConfirmation,
            ) -> Result<String, $crate::store::ConfirmationStoreError> {
                $crate::store::parked::consent_op($crate::store::parked::park(self, call)).await
            }

            async fn take(
                &self,
                id: &str,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<$crate::store::TakenConfirmation, $crate::store::ConfirmationStoreError>
            {
                $crate::store::parked::consent_op($crate::store::parked::take(self, id, now)).await
            }

            async fn pending(
                &self,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<Vec<$crate::store::StoredConfirmation>, $crate::store::ConfirmationStoreError>
            {
                use $crate::store::parked::ParkedCalls;
                $crate::store::parked::consent_op(self.live(now)).await
            }

            async fn expired(
                &self,
                now: chrono::DateTime<chrono::Utc>,
                limit: usize,
            ) -> Result<Vec<$crate::store::StoredConfirmation>, $crate::store::ConfirmationStoreError>
            {
                use $crate::store::parked::ParkedCalls;
                $crate::store::parked::consent_op(self.lapsed(now, limit)).await
            }
        }
    };
}
pub(super) use confirmation_store;
