//! Two packs end to end: `zodiac` (provider, on subscription) and `jungastro` (consumer),
//! with one subscribed user and one who is not.
//!
//! ```text
//! cargo run --example packs [path/to/packs.db]
//! ```

mod astro;
mod core_tools;
mod jungastro;
mod zodiac;

use chrono::NaiveDate;
use toolwright::{Dispatcher, SkillContext};
use toolwright_packs::{check_packs, AuditQuery, Caller, Gateway, SqliteStore};

use jungastro::BirthProfile;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let problems = check_packs();
    println!("clausewright check: {} problem(s)", problems.len());
    for problem in &problems {
        println!("  - {problem}");
    }

    let path = std::env::args().nth(1).map_or_else(
        || std::env::temp_dir().join(format!("toolwright-packs-demo-{}.db", std::process::id())),
        Into::into,
    );
    let store = SqliteStore::open(&path)?;
    let gateway = Gateway::builder(Dispatcher::from_inventory()?)
        .linked_packs()
        .core_tools(["show_card"])
        .store(store)
        .build()?;
    println!("database: {}", path.display());

    let tools = gateway.tools_for_pack("jungastro")?;
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|t| t.pointer("/function/name")?.as_str())
        .collect();
    println!("tools offered to jungastro's model: {}", names.join(", "));

    gateway
        .subscriptions()
        .subscribe("alice", "zodiac", None)
        .await?;
    let users = [
        (
            "alice",
            NaiveDate::from_ymd_opt(1990, 7, 15).unwrap(),
            "08:30",
            480,
        ),
        (
            "bob",
            NaiveDate::from_ymd_opt(1985, 12, 2).unwrap(),
            "21:10",
            60,
        ),
    ];
    for (user, date, time, offset) in users {
        println!("\n== {user} ==");
        let ctx = SkillContext::new().with(BirthProfile {
            date,
            time: Some(time.into()),
            place: Some("Beijing".into()),
            utc_offset_minutes: offset,
        });
        let caller = Caller::new("jungastro", user);
        let chart = gateway
            .call_tool(&caller, "jungastro_get_zodiac_chart", None, &ctx)
            .await;
        println!("get_zodiac_chart -> {}", chart.to_model_json());
        if chart.error_code() == Some(toolwright_packs::codes::SUBSCRIPTION_REQUIRED) {
            let card =
                jungastro::subscribe_card(chart.error.as_ref().and_then(|e| e.details.as_ref()));
            let shown = gateway
                .call_tool(&caller, "show_card", Some(&card), &ctx)
                .await;
            println!("show_card -> {}", shown.to_model_json());
        }
        let reading = gateway
            .call_tool(&caller, "jungastro_archetype_reading", None, &ctx)
            .await;
        println!("archetype_reading -> {}", reading.to_model_json());
    }

    println!("\naudit log (newest first):");
    for r in gateway.audit_log().query(&AuditQuery::default()).await? {
        println!(
            "  {} {} -> {}:{} user={} outcome={} {:.2} ms",
            r.at.format("%H:%M:%S%.3f"),
            r.consumer,
            r.provider,
            r.tool,
            r.user,
            r.outcome,
            r.duration_ms
        );
    }
    Ok(())
}
