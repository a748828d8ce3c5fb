//! The library's own review of a contract file, timed, for comparison with `clausewright review`
//! of the same file (`bench/shipped/run.sh`): the same steps as the command (read and parse
//! the contract, review it by the generated checklist on a multi-threaded runtime, render the
//! JSON report, write it), with the dispatcher the library gives by default: no call time
//! limit, the system allocator.
//!
//! ```sh
//! cargo run --release --example library_review -- /tmp/contract-22200.md /dev/null
//! ```
//! Prints one line: the whole run, the review alone and the review's skill calls.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clausewright_skills::review::{
    build_review_state, review_with_agent, ReviewInputs, ReviewOptions,
};
use toolwright::Dispatcher;

toolwright::link_skills!(clausewright_skills);

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(contract), Some(out)) = (args.next(), args.next()) else {
        eprintln!(
            "usage: library_review CONTRACT OUT (a contract file; where the JSON report goes)"
        );
        return ExitCode::from(2);
    };
    let started = Instant::now();
    let dispatcher = match Dispatcher::from_inventory() {
        Ok(dispatcher) => dispatcher,
        Err(err) => {
            eprintln!("error: the skill registry is not valid: {err}");
            return ExitCode::from(2);
        }
    };
    let inputs = ReviewInputs {
        primary: PathBuf::from(contract),
        baseline: None,
        references: Vec::new(),
        criteria_file: None,
        checklist_file: None,
        domain: clausewright_skills::review::Domain::Fidic,
        our_party: String::new(),
        language: "en".into(),
        material_type: String::new(),
        domain_subtype: String::new(),
    };
    let state = match build_review_state(&inputs) {
        Ok(state) => state,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start a runtime: {err}");
            return ExitCode::from(2);
        }
    };
    let reviewing = Instant::now();
    let report = runtime.block_on(review_with_agent(
        &dispatcher,
        &state,
        &ReviewOptions::default(),
        None,
        std::future::pending(),
    ));
    let review_s = reviewing.elapsed().as_secs_f64();
    runtime.shutdown_background();
    // Written as it is rendered, as the binary writes it.
    let written = std::fs::File::create(&out).and_then(|file| {
        let mut writer = std::io::BufWriter::with_capacity(1 << 20, file);
        serde_json::to_writer_pretty(&mut writer, &report)?;
        writer.flush()
    });
    if let Err(err) = written {
        eprintln!("error: cannot write {}: {err}", out.to_string_lossy());
        return ExitCode::from(2);
    }
    println!(
        "library_review: total {:.3} s, review {review_s:.3} s, {} clauses, {} skill calls, {} failed",
        started.elapsed().as_secs_f64(),
        report.summary.clauses_reviewed,
        report.summary.skill_calls,
        report.summary.skill_failures,
    );
    ExitCode::SUCCESS
}
