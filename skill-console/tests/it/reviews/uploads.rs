//! Uploads: their own limit, private and distinct folders removed after the review or at
//! the next start; no runner.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_has_its_own_limit_above_the_body_limit() {
    let runner = Arc::new(LineRunner::default());
    runner.open();
    let state = ConsoleState::builder(dispatcher())
        .options(
            ConsoleOptions::new(TOKEN)
                .max_body_bytes(1024)
                .max_upload_bytes(64 * 1024),
        )
        .reviews(runner.clone())
        .build();
    let app = router(state.clone());
    // 8 KiB: over the body limit, under the upload limit: reviewed.
    let contract = "fine clause\n".repeat(700);
    let ok = start(
        &app,
        &[
            ("csrf", None, state.csrf_token()),
            ("files", Some("c.md"), &contract),
        ],
    )
    .await;
    assert_eq!(ok.status, StatusCode::SEE_OTHER, "{}", ok.body);
    page_once(&app, &location(&ok), "review-summary").await;
    // 80 KiB: refused with the limit, nothing started.
    let big = "fine clause\n".repeat(7000);
    let refused = start(
        &app,
        &[
            ("csrf", None, state.csrf_token()),
            ("files", Some("big.md"), &big),
        ],
    )
    .await;
    assert_eq!(refused.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(
        refused
            .body
            .contains("the uploaded contract is larger than the limit of 64 KiB (65536 bytes)"),
        "{}",
        refused.body
    );
    assert_eq!(runner.seen.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn without_a_runner_the_page_says_so() {
    let app = app(&state());
    let page = get(&app, "/reviews").await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    assert!(page.body.contains("no-reviews"));
}

#[tokio::test]
async fn uploads_are_private_distinct_and_removed_when_the_review_is_over() {
    let runner = Arc::new(LineRunner::default());
    let (state, app) = console(Arc::clone(&runner));
    let root = state
        .upload_folder()
        .expect("an upload folder")
        .to_path_buf();
    let csrf = state.csrf_token().to_string();
    let answer = start(
        &app,
        &[
            ("csrf", None, &csrf),
            ("files", Some("my contract.md"), "1 fine\n2 a risk"),
            ("files", Some("my_contract.md"), "second"),
            ("files", Some("x/my?contract.md"), "third"),
        ],
    )
    .await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
    // The runner has the request; its files are on disk until the review is over.
    let upload = loop {
        if let Some(request) = runner.seen.lock().unwrap().first().cloned() {
            let ReviewSource::Upload(upload) = request.source else {
                panic!("an upload")
            };
            break upload;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    };
    let saved: Vec<&str> = upload.files().iter().map(|f| f.saved_as.as_str()).collect();
    assert_eq!(
        saved,
        ["my_contract.md", "my_contract-2.md", "my_contract-3.md"]
    );
    let texts: Vec<String> = upload
        .files()
        .iter()
        .map(|f| std::fs::read_to_string(&f.path).unwrap())
        .collect();
    assert_eq!(
        texts,
        ["1 fine\n2 a risk", "second", "third"],
        "nothing overwritten"
    );
    assert!(upload.folder().starts_with(&root));
    assert_eq!(
        upload.review_path(),
        upload.folder(),
        "several files: the folder"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&root), 0o700);
        assert_eq!(mode(upload.folder()), 0o700);
        for file in upload.files() {
            assert_eq!(mode(&file.path), 0o600, "{}", file.saved_as);
        }
    }
    let folder = upload.folder().to_path_buf();
    drop(upload);
    runner.seen.lock().unwrap().clear();
    runner.open();
    // Once the review is over (and nothing holds the request), its folder is gone.
    for _ in 0..500 {
        if !folder.exists() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(!folder.exists(), "the review's folder is removed");
    assert!(root.exists(), "the console's folder stays while it runs");
    state.remove_uploads();
    assert!(!root.exists(), "removed at exit");
}

#[test]
fn a_dropped_console_removes_its_uploads_and_the_next_start_removes_stale_ones() {
    let parent = std::env::temp_dir().join(format!(
        "skill-console-test-{}",
        ConsoleOptions::random_token()
    ));
    std::fs::create_dir(&parent).unwrap();
    // Left by a console whose process is gone (no process has this id), and one by a
    // console of this very process, which runs.
    let stale = parent.join("toolwright-uploads-4000000000-dead");
    std::fs::create_dir_all(stale.join("review-1")).unwrap();
    std::fs::write(stale.join("review-1/contract.md"), "left behind").unwrap();
    let alive = parent.join(format!("toolwright-uploads-{}-live", std::process::id()));
    std::fs::create_dir(&alive).unwrap();
    let unrelated = parent.join("something-else");
    std::fs::create_dir(&unrelated).unwrap();

    let mut options = ConsoleOptions::new(TOKEN);
    options.upload_parent = parent.clone();
    let state = ConsoleState::builder(dispatcher())
        .options(options)
        .reviews(Arc::new(LineRunner::default()))
        .build();
    let root = state.upload_folder().unwrap().to_path_buf();
    assert!(root.starts_with(&parent) && root.exists());
    assert!(
        !stale.exists(),
        "a dead console's uploads are removed at start"
    );
    assert!(alive.exists(), "a running console's are kept");
    assert!(unrelated.exists(), "other folders are not touched");
    drop(state);
    assert!(!root.exists(), "a dropped console removes its uploads");
    std::fs::remove_dir_all(&parent).unwrap();
}
