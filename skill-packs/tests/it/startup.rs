//! Building a gateway: broken contracts refuse to start; the default store.

use std::path::PathBuf;

use toolwright::Dispatcher;
use toolwright_packs::{Gateway, GatewayError, ImportDecl, PackExports, PackManifest, SqliteStore};

use crate::support::*;
use crate::zodiac::Zodiac;

#[test]
fn the_gateway_refuses_to_start_on_broken_contracts() {
    static ORPHAN: PackManifest = PackManifest {
        id: "orphan",
        name: "Orphan",
        version: "1.0.0",
        exports: PackExports::NONE,
        imports: &[
            ImportDecl {
                from: "ghost",
                tools: &["ghost.x"],
                min_version: "1",
            },
            ImportDecl {
                from: "zodiac",
                tools: &["zodiac.secret"],
                min_version: "1",
            },
        ],
        type_name: "Orphan",
    };
    let err = Gateway::builder(Dispatcher::from_inventory().unwrap())
        .linked_packs()
        .manifest(&ORPHAN)
        .store(SqliteStore::open_in_memory().unwrap())
        .clock(start)
        .build()
        .unwrap_err();
    let GatewayError::Contracts(problems) = &err else {
        panic!("{err}")
    };
    assert_eq!(problems.len(), 2, "{err}");
    let text = err.to_string();
    assert!(text.starts_with("2 pack contract problem(s):"), "{text}");
    assert!(text.contains("no pack `ghost` exists"), "{text}");
    assert!(text.contains("imports `zodiac.secret`"), "{text}");

    // An exported tool the dispatcher does not know.
    let err = Gateway::builder(Dispatcher::builder().build().unwrap())
        .pack::<Zodiac>()
        .store(SqliteStore::open_in_memory().unwrap())
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `zodiac.calculate_zodiac` (exported by `zodiac`) is not registered in the dispatcher"
    );
    let err = Gateway::builder(Dispatcher::from_inventory().unwrap())
        .core_tools(["read"])
        .store(SqliteStore::open_in_memory().unwrap())
        .clock(start)
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `read` (core tool) is not registered in the dispatcher"
    );
}

#[tokio::test]
async fn without_explicit_stores_the_gateway_opens_sqlite_in_wal_mode_at_the_given_path() {
    let path = temp_db("default-store");
    let gateway = Gateway::builder(Dispatcher::from_inventory().unwrap())
        .linked_packs()
        .sqlite_path(&path)
        .clock(start)
        .build()
        .unwrap();
    gateway
        .subscriptions()
        .subscribe("olga", "zodiac", None)
        .await
        .unwrap();
    assert!(path.exists());
    // WAL mode leaves a -wal file next to the database while a connection is open.
    let wal = PathBuf::from(format!("{}-wal", path.display()));
    assert!(wal.exists(), "{}", wal.display());
    // A second instance on the same file sees the subscription.
    let other = SqliteStore::open(&path).unwrap();
    use toolwright_packs::SubscriptionStore;
    assert!(other
        .is_subscribed("olga", "zodiac", start())
        .await
        .unwrap());
}
