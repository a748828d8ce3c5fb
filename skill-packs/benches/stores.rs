//! Latency of a subscribed, rate-limited cross-pack call on each store (SQLite; PostgreSQL;
//! Redis quotas with PostgreSQL for subscriptions and audit), for one caller and for 64
//! concurrent callers, as p50 and p99; the quota check alone; and catalog sync of 16 and
//! 1,000 skills (first sync, and a resync with nothing changed).
//!
//! Percentiles need every sample, so this bench times calls itself instead of going through
//! criterion. A server that does not answer is left out with a message.
//!
//! `cargo bench -p toolwright-packs --features postgres,redis --bench stores`

use std::time::{Duration, Instant};

use chrono::Utc;
use serde_json::json;
use toolwright::prelude::*;
use toolwright::{Dispatcher, SkillContext};
use toolwright_packs::{schema_hash, sync_catalog, Caller, CatalogEntry, Gateway, Stores, Window};

/// Counts one tick.
#[skill(id = "meter.tick")]
fn meter_tick() -> u8 {
    1
}

toolwright_packs::pack! {
    /// A provider whose one tool needs a subscription and is rate-limited.
    pub struct Meter {
        id: "meter",
        name: "Meter",
        version: "1.0.0",
        exports: {
            api_version: "1.0.0",
            tools: [MeterTick],
            access: {
                requires_subscription: true,
                rate_limits: { MeterTick: "4000000000/day" },
            },
        },
    }
}

toolwright_packs::pack! {
    /// Calls the meter.
    pub struct Dash {
        id: "dash",
        name: "Dash",
        version: "1.0.0",
        imports: [{ from: Meter, tools: [MeterTick], min_version: "1" }],
    }
}

fn percentiles(mut samples: Vec<Duration>) -> (f64, f64, usize) {
    samples.sort();
    let at = |q: f64| {
        let i = ((samples.len() as f64 - 1.0) * q).round() as usize;
        samples[i].as_secs_f64() * 1000.0
    };
    (at(0.50), at(0.99), samples.len())
}

fn reachable(addr: &str) -> bool {
    std::net::TcpStream::connect_timeout(&addr.parse().unwrap(), Duration::from_secs(1)).is_ok()
}

fn unique(base: &str) -> String {
    format!(
        "{base}_{}_{}",
        std::process::id(),
        Utc::now().timestamp_nanos_opt().unwrap_or_default() % 1_000_000_000
    )
}

async fn call_latencies(name: &str, stores: Stores) {
    let gateway = Gateway::builder(Dispatcher::from_inventory().unwrap())
        .pack::<Meter>()
        .pack::<Dash>()
        .stores(stores.clone())
        .build()
        .unwrap();
    let user = unique("bench");
    gateway
        .subscriptions()
        .subscribe(&user, "meter", None)
        .await
        .unwrap();
    let ctx = SkillContext::new();
    let caller = Caller::new("dash", user.clone());
    for _ in 0..200 {
        let r = gateway.call_tool(&caller, "meter_tick", None, &ctx).await;
        assert!(r.success, "{r:?}");
    }
    let mut single = Vec::new();
    for _ in 0..2000 {
        let t = Instant::now();
        let r = gateway.call_tool(&caller, "meter_tick", None, &ctx).await;
        single.push(t.elapsed());
        assert!(r.success);
    }
    let (p50, p99, n) = percentiles(single);
    println!("{name:<28} call, 1 caller     p50 {p50:7.3} ms  p99 {p99:7.3} ms  ({n} calls)");
    let mut tasks = Vec::new();
    for _ in 0..64 {
        let gateway = gateway.clone();
        let caller = caller.clone();
        tasks.push(tokio::spawn(async move {
            let ctx = SkillContext::new();
            let mut samples = Vec::new();
            for _ in 0..60 {
                let t = Instant::now();
                let r = gateway.call_tool(&caller, "meter_tick", None, &ctx).await;
                samples.push(t.elapsed());
                assert!(r.success, "{r:?}");
            }
            samples
        }));
    }
    let started = Instant::now();
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.unwrap());
    }
    let wall = started.elapsed();
    let (p50, p99, n) = percentiles(all);
    println!(
        "{name:<28} call, 64 callers    p50 {p50:7.3} ms  p99 {p99:7.3} ms  ({n} calls, {:.0} calls/s)",
        n as f64 / wall.as_secs_f64()
    );
    let quotas = stores.quotas.clone();
    let mut check = Vec::new();
    for _ in 0..2000 {
        let t = Instant::now();
        quotas
            .try_acquire(&user, "meter.tick", u32::MAX, Window::Day, Utc::now())
            .await
            .unwrap();
        check.push(t.elapsed());
    }
    let (p50, p99, n) = percentiles(check);
    println!("{name:<28} quota check alone  p50 {p50:7.3} ms  p99 {p99:7.3} ms  ({n} checks)");
}

fn synthetic_entries(n: usize) -> Vec<CatalogEntry> {
    (0..n)
        .map(|i| {
            let parameters = json!({
                "type": "object",
                "properties": {
                    "client_name": {"type": "string", "description": "The client's name"},
                    "limit": {"type": "integer", "default": 10}
                },
                "required": ["client_name"]
            });
            let output_schema = json!({"type": "array", "items": {"type": "object"}});
            let id = format!("bench.tool_{i:04}");
            CatalogEntry {
                name: id.clone(),
                description: format!("Benchmark tool number {i}."),
                domain: "bench".into(),
                category: "query".into(),
                status: "active".into(),
                version: "1.0.0".into(),
                schema_hash: schema_hash(&parameters, &output_schema),
                usage_example: format!(
                    "```tool_call\n{{\"toolId\":\"{id}\",\"params\":{{\"client_name\":\"Acme\"}}}}\n```"
                ),
                parameters,
                output_schema,
                enabled: true,
                id,
            }
        })
        .collect()
}

async fn catalog_sync(name: &str, mut url_of: impl FnMut(&str) -> String) {
    for n in [16, 1000] {
        let entries = synthetic_entries(n);
        let (mut first, mut resync) = (Vec::new(), Vec::new());
        for round in 0..5 {
            let url = url_of(&unique(&format!("catalog{n}_{round}")));
            let t = Instant::now();
            let report = sync_catalog(&url, &entries, false, Utc::now())
                .await
                .unwrap();
            first.push(t.elapsed());
            assert_eq!(report.added.len(), n);
            for _ in 0..3 {
                let t = Instant::now();
                let report = sync_catalog(&url, &entries, false, Utc::now())
                    .await
                    .unwrap();
                resync.push(t.elapsed());
                assert_eq!(report.unchanged, n);
            }
        }
        let (f50, _, _) = percentiles(first);
        let (r50, r99, _) = percentiles(resync);
        println!(
            "{name:<28} catalog {n:>4} skills  first sync p50 {f50:8.2} ms  no-change resync p50 {r50:7.2} ms (max {r99:.2})"
        );
    }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing to parse.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let pg = "postgres://root@127.0.0.1:5432/test";
    let redis = "redis://127.0.0.1:6379";
    let pg_up = reachable("127.0.0.1:5432");
    let redis_up = reachable("127.0.0.1:6379");
    runtime.block_on(async {
        let dir = std::env::temp_dir();
        let sqlite = format!(
            "sqlite://{}",
            dir.join(format!("{}.db", unique("bench"))).display()
        );
        call_latencies("sqlite", Stores::connect(&sqlite, None).await.unwrap()).await;
        let mut schemas = Vec::new();
        if pg_up {
            let schema = unique("bench");
            let url = format!("{pg}?schema={schema}");
            schemas.push(schema);
            call_latencies("postgres", Stores::connect(&url, None).await.unwrap()).await;
            if redis_up {
                let schema = unique("bench");
                let url = format!("{pg}?schema={schema}");
                schemas.push(schema);
                let quota = format!("{redis}?prefix={}:", unique("bench"));
                call_latencies(
                    "redis quotas + postgres",
                    Stores::connect(&url, Some(&quota)).await.unwrap(),
                )
                .await;
            }
        } else {
            println!("postgres: not reachable at {pg}, left out");
        }
        if redis_up {
            let quota = format!("{redis}?prefix={}:", unique("bench"));
            call_latencies(
                "redis quotas + sqlite",
                Stores::connect(&sqlite, Some(&quota)).await.unwrap(),
            )
            .await;
        } else {
            println!("redis: not reachable at {redis}, left out");
        }
        catalog_sync("sqlite", |name| {
            format!("sqlite://{}", dir.join(format!("{name}.db")).display())
        })
        .await;
        if pg_up {
            catalog_sync("postgres", |name| {
                schemas.push(name.to_string());
                format!("{pg}?schema={name}")
            })
            .await;
        }
        if pg_up {
            let (client, conn) = tokio_postgres::connect(pg, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(conn);
            for schema in schemas {
                let _ = client
                    .batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"))
                    .await;
            }
        }
    });
}
