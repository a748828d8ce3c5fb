//! Cost of the gateway on a cross-pack call: import check, subscription lookup, quota
//! increment and audit write in SQLite (WAL), against the bare dispatcher call.
//!
//! `cargo bench -p toolwright-packs --bench gateway -- --warm-up-time 1 --measurement-time 2`

#[path = "../../examples/packs/astro.rs"]
#[allow(dead_code)]
mod astro;
#[path = "../../examples/packs/jungastro.rs"]
#[allow(dead_code)]
mod jungastro;
#[path = "../../examples/packs/zodiac.rs"]
#[allow(dead_code)]
mod zodiac;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;
use toolwright::{Dispatcher, SkillContext};
use toolwright_packs::{Caller, Gateway, SqliteStore};

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let path = std::env::temp_dir().join(format!("skill-packs-bench-{}.db", std::process::id()));
    let gateway = Gateway::builder(Dispatcher::from_inventory().unwrap())
        .linked_packs()
        .store(SqliteStore::open(&path).unwrap())
        .build()
        .unwrap();
    let ctx = SkillContext::new();
    let args = json!({"include_aspects": true});
    runtime.block_on(async {
        gateway
            .state_store()
            .save("u", zodiac::CHART_PATH, &json!({"format": "2", "sun_longitude": 112.3, "moon_longitude": 16.5, "ascendant": null}))
            .await
            .unwrap();
        gateway.subscriptions().subscribe("u", "zodiac", None).await.unwrap();
    });

    let caller = Caller::new("jungastro", "u");
    let mut group = c.benchmark_group("cross_pack_call");
    group.bench_function("gateway_free_accessor_with_audit", |b| {
        b.iter(|| {
            runtime.block_on(gateway.call_tool(
                &caller,
                "zodiac_get_chart_snapshot",
                Some(&args),
                &ctx,
            ))
        })
    });
    let calc = json!({"birth_date": "1990-07-15", "birth_time": "08:30"});
    group.bench_function("gateway_subscribed_rate_limited_tool", |b| {
        b.iter(|| {
            // Past the 50/day quota this measures the refusal path (subscription + quota).
            runtime.block_on(gateway.call_tool(
                &caller,
                "zodiac_calculate_zodiac",
                Some(&calc),
                &ctx,
            ))
        })
    });
    group.bench_function("tools_for_pack_cached", |b| {
        b.iter(|| gateway.tools_for_pack("jungastro").unwrap())
    });
    group.finish();
    let _ = std::fs::remove_file(&path);
}

criterion_group!(benches, bench);
criterion_main!(benches);
