//! Core tools every pack's model sees, whatever it imports.

use serde_json::{json, Value};
use toolwright::prelude::*;

/// Show a card to the user (a subscription offer, a chart). Returns what the UI renders.
#[skill(id = "show_card", category = "ui")]
pub fn show_card(
    /// Kind of card, for example "subscribe".
    card_type: String,
    /// What the card displays.
    #[arg(default)]
    data: Value,
) -> Value {
    json!({ "type": "card", "card_type": card_type, "data": data })
}
