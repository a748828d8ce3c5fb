//! Calls that wait for consent.

use super::*;

#[tokio::test]
async fn undecided_calls_expire_on_the_dispatchers_clock() {
    let ctx = SkillContext::new();
    let waiting = dispatcher();
    assert_eq!(
        waiting.confirmation_ttl(),
        toolwright::DEFAULT_CONFIRMATION_TTL
    );
    let r = waiting
        .call("crm.create_client", r#"{"name": "Kept"}"#, &ctx)
        .await;
    let kept = r.pending_confirmation().expect("parked");
    assert!(waiting
        .pending_confirmations()
        .iter()
        .any(|p| p.id == kept.id));
    assert!(waiting.expired_confirmations().is_empty());

    let hasty = toolwright::DispatcherBuilder::from_dispatcher(&waiting)
        .confirmation_ttl(std::time::Duration::ZERO)
        .build()
        .unwrap();
    assert_eq!(hasty.len(), waiting.len(), "the same skills");
    let r = hasty
        .call("crm.create_client", r#"{"name": "Gone"}"#, &ctx)
        .await;
    let gone = r.pending_confirmation().expect("parked");
    assert!(hasty.pending_confirmations().is_empty(), "expired at once");
    let expired = hasty.expired_confirmations();
    assert_eq!(expired.len(), 1);
    assert_eq!(expired[0].pending, gone);
    assert_eq!(
        hasty.confirm(&gone.id, &ctx).await.unwrap_err(),
        ConfirmationError::Expired {
            id: gone.id.clone(),
            ttl: std::time::Duration::ZERO
        }
    );
    assert!(matches!(
        hasty.reject(&gone.id, None),
        Err(ConfirmationError::Expired { .. })
    ));
}

#[tokio::test]
async fn write_calls_wait_for_confirmation_then_run_once() {
    let d = dispatcher();
    let ctx = SkillContext::new();
    let before = examples::CREATED.load(Ordering::SeqCst);
    let r = d
        .call("crm.create_client", r#"{"name": 42, "tags": "vip"}"#, &ctx)
        .await;
    assert_eq!(r.error_code(), Some(codes::CONFIRMATION_REQUIRED));
    assert_eq!(
        examples::CREATED.load(Ordering::SeqCst),
        before,
        "nothing ran yet"
    );
    // JSON consumers read the pending call where they always did.
    let wire: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    let pending: toolwright::PendingConfirmation =
        serde_json::from_value(wire["error"]["details"]["pending_confirmation"].clone()).unwrap();
    assert_eq!(
        r.pending_confirmation().as_ref(),
        Some(&pending),
        "the typed accessor reads the same pending call"
    );
    let read_back: toolwright::SkillResult = serde_json::from_value(wire).unwrap();
    assert_eq!(
        read_back.outcome(),
        r.outcome(),
        "the typed outcome survives the wire"
    );
    assert_eq!(pending.skill_id, "crm.create_client");
    assert_eq!(
        pending.arguments,
        json!({"name": "42", "tags": ["vip"]}),
        "checked and fixed before parking"
    );
    assert_eq!(r.warnings.len(), 2);
    assert!(r.error.as_ref().unwrap().message.contains(&pending.id));
    assert!(d.pending_confirmations().iter().any(|p| p.id == pending.id));

    let done = d.confirm(&pending.id, &ctx).await.unwrap();
    assert!(done.success, "{:?}", done.error);
    assert!(done.pending_confirmation().is_none());
    assert_eq!(done.data_as::<String>().unwrap(), "created 42");
    assert_eq!(examples::CREATED.load(Ordering::SeqCst), before + 1);
    assert_eq!(
        d.confirm(&pending.id, &ctx).await.unwrap_err(),
        ConfirmationError::UnknownPending(pending.id.clone())
    );
}

#[tokio::test]
async fn rejected_calls_never_run_and_bad_arguments_are_not_parked() {
    let d = dispatcher();
    let ctx = SkillContext::new();
    let r = d
        .call("crm.delete_client", r#"{"client_id": "c1"}"#, &ctx)
        .await;
    let pending = r.pending_confirmation().unwrap().id;
    let rejected = d.reject(&pending, Some("wrong client")).unwrap();
    assert_eq!(rejected.error_code(), Some(codes::CONFIRMATION_REJECTED));
    assert!(rejected.error.unwrap().message.contains("wrong client"));
    assert!(d.reject(&pending, None).is_err());
    assert!(d.pending_confirmations().iter().all(|p| p.id != pending));

    let r = d.call("crm.delete_client", "{}", &ctx).await;
    assert_eq!(
        r.error_code(),
        Some(codes::INVALID_ARGUMENTS),
        "fix the arguments before asking the user"
    );
}

#[tokio::test]
async fn a_confirmed_context_runs_write_calls_directly() {
    let d = dispatcher();
    let ctx = SkillContext::new().with(Confirmed);
    let r = d
        .call("crm.delete_client", r#"{"client_id": "c1"}"#, &ctx)
        .await;
    assert!(r.success, "{:?}", r.error);
    // An explicit `requires_confirmation = false` runs without asking.
    let r = d
        .call("files.rename", r#"{"id": "r1"}"#, &SkillContext::new())
        .await;
    assert!(r.success);
}
