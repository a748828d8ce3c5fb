//! Words that mean the same thing in requests and tool descriptions: general English and
//! programming vocabulary, one group a line. A request word also matches the other words
//! of its groups, at a reduced weight and never more than once (the best match counts).

/// The groups, as written (analysed into terms when an index is built).
pub(crate) const GROUPS: &[&str] = &[
    // Acting on things.
    "buy purchase order",
    "book reserve reservation booking",
    "cancel abort revoke",
    "create make add generate new",
    "delete remove erase",
    "update modify change edit alter",
    "find search look lookup locate seek discover",
    "retrieve fetch obtain get",
    "list enumerate",
    "show display view",
    "start begin launch initiate",
    "stop halt terminate kill end",
    "run execute invoke",
    "send transmit dispatch",
    "calculate compute",
    "estimate approximate predict",
    "check verify validate inspect",
    "compare comparison versus",
    "convert conversion transform",
    "translate translation",
    "summarize summary overview",
    "recommend recommendation suggest suggestion",
    "schedule appointment",
    "remind reminder alarm alert",
    "notify notification",
    "download fetch",
    "install setup",
    "sort arrange rank",
    "count tally",
    // Things.
    "movie film cinema",
    "song music track tune",
    "singer artist musician band",
    "picture image photo photograph",
    "car vehicle automobile",
    "taxi cab ride",
    "flight airline plane",
    "trip travel journey vacation holiday",
    "hotel lodging accommodation",
    "house home residence",
    "restaurant eatery dine dining",
    "food meal dish cuisine",
    "doctor physician",
    "medicine medication drug",
    "illness disease sickness",
    "job employment occupation",
    "company business firm corporation",
    "price cost fee charge",
    "cheap inexpensive affordable",
    "money cash funds",
    "pay payment",
    "salary wage income",
    "loan mortgage borrow",
    "stock share equity",
    "file document",
    "folder directory",
    "message text",
    "email mail",
    "phone telephone call",
    "user account profile",
    "password credential",
    "server host",
    "database db",
    "repository repo",
    "website site webpage",
    "address location place",
    "city town",
    "country nation",
    "nearby near close",
    "route directions navigation",
    "distance length",
    "speed velocity",
    "weight mass",
    "size dimension",
    "temperature heat",
    "weather forecast",
    "rain precipitation",
    "date day",
    "time clock",
    "kid child children",
    "friend buddy",
    "show performance",
    "theater theatre",
    "concert gig",
    "sport game match",
    "score points",
    "team club",
    "player athlete",
    "recipe cooking",
    "calorie calories nutrition",
    "number quantity amount",
    "total sum",
    "average mean",
    "big large huge",
    "small little tiny",
    "probability chance odds likelihood",
    "chart graph plot",
    "information info details",
    "error failure fault",
    "log record",
    "version release",
    "clean cleaning housekeeping",
    "hair haircut salon stylist barber",
    "rental rent hire lease",
    "shipping delivery",
    "grocery groceries supermarket",
    "shop store",
    "review rating",
    "birthday birth born",
    "history historical",
    "law legal",
    "crime criminal",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_have_at_least_two_lowercase_words() {
        for group in GROUPS {
            let words: Vec<&str> = group.split_whitespace().collect();
            assert!(words.len() >= 2, "group `{group}` names one word");
            assert!(
                words
                    .iter()
                    .all(|w| w.chars().all(|c| c.is_ascii_lowercase())),
                "group `{group}` is not lowercase ASCII words"
            );
        }
    }
}
