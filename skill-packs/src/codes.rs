//! Error codes of the gateway and of [`PackSession`](crate::PackSession), as they appear in
//! [`SkillResult::error`](toolwright::SkillResult) next to toolwright's own codes.

/// The calling pack did not import the tool.
pub const TOOL_NOT_IMPORTED: &str = "tool_not_imported";
/// The provider does not export the tool.
pub const TOOL_NOT_EXPORTED: &str = "tool_not_exported";
/// The tool's removal date has passed.
pub const TOOL_REMOVED: &str = "tool_removed";
/// The user has no subscription to the provider (details carry
/// `action: "show_subscribe_card"`).
pub const SUBSCRIPTION_REQUIRED: &str = "subscription_required";
/// The user used up the tool's quota (details carry `retry_after` in seconds).
pub const RATE_LIMITED: &str = "rate_limited";
/// No pack with that id.
pub const UNKNOWN_PACK: &str = "unknown_pack";
/// A pack called in the name of another pack.
pub const CONSUMER_MISMATCH: &str = "consumer_mismatch";
/// Cross-pack calls nested deeper than [`MAX_CALL_DEPTH`](crate::MAX_CALL_DEPTH).
pub const CALL_DEPTH_EXCEEDED: &str = "call_depth_exceeded";
/// A pack wrote outside `skills.<pack>.*`.
pub const CROSS_PACK_WRITE: &str = "cross_pack_write";
/// A pack read another pack's state instead of calling its accessor tools.
pub const CROSS_PACK_READ: &str = "cross_pack_read";
/// Subscriptions, quotas or state could not be read or written.
pub const STORAGE_FAILED: &str = "storage_failed";
/// The quota store could not be reached, so a call that needs a quota check was refused
/// (free tools pass when the gateway is built with
/// [`fail_open_free_tools`](crate::GatewayBuilder::fail_open_free_tools)).
pub const QUOTA_UNAVAILABLE: &str = "quota_unavailable";
/// The call ran but its audit record could not be written after retries; the tool's
/// result is in the error's details under `result`.
pub const AUDIT_FAILED: &str = "audit_failed";
