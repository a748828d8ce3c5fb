//! Rate limits as providers write them (`50/day`, `10/hour`, `unlimited`), and the fixed
//! windows the gateway counts calls in.
//!
//! Parsing is a `const fn`, so a malformed limit in `pack!` fails the build.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::Serialize;

/// The length of one counting window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Window {
    /// One second.
    Second,
    /// One minute.
    Minute,
    /// One hour.
    Hour,
    /// One UTC calendar day.
    Day,
}

impl Window {
    /// Length of the window in seconds.
    pub const fn seconds(self) -> i64 {
        match self {
            Window::Second => 1,
            Window::Minute => 60,
            Window::Hour => 3_600,
            Window::Day => 86_400,
        }
    }

    /// The unit as written after the `/`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Window::Second => "second",
            Window::Minute => "minute",
            Window::Hour => "hour",
            Window::Day => "day",
        }
    }

    /// Start (unix seconds) of the window holding `now`; windows are aligned to the epoch,
    /// so a day window is a UTC calendar day.
    pub fn start_of(self, now: DateTime<Utc>) -> i64 {
        let secs = now.timestamp();
        secs - secs.rem_euclid(self.seconds())
    }

    /// Whole seconds from `now` until the next window opens (at least 1).
    pub fn retry_after(self, now: DateTime<Utc>) -> u64 {
        let next = self.start_of(now) + self.seconds();
        let millis = next * 1000 - now.timestamp_millis();
        ((millis + 999) / 1000).max(1) as u64
    }
}

/// How often one user may call one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RateLimit {
    /// No limit.
    Unlimited,
    /// At most `max` calls per window.
    PerWindow {
        /// Calls admitted per window.
        max: u32,
        /// The window.
        window: Window,
    },
}

/// Why a rate limit text could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateLimitParseError {
    /// No `/` between count and unit.
    MissingSlash,
    /// The count is not a whole number that fits in 32 bits.
    BadCount,
    /// The unit is not `second`, `minute`, `hour` or `day`.
    BadUnit,
}

impl RateLimitParseError {
    /// What was expected, for messages.
    pub const fn message(self) -> &'static str {
        match self {
            RateLimitParseError::MissingSlash => {
                "expected `<count>/<unit>` such as `50/day`, or `unlimited`"
            }
            RateLimitParseError::BadCount => {
                "the count before `/` must be a whole number below 2^32"
            }
            RateLimitParseError::BadUnit => {
                "the unit after `/` must be `second`, `minute`, `hour` or `day`"
            }
        }
    }
}

impl fmt::Display for RateLimitParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for RateLimitParseError {}

const fn bytes_eq(a: &[u8], start: usize, b: &[u8]) -> bool {
    if a.len() - start != b.len() {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if a[start + i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl RateLimit {
    /// Reads `unlimited` or `<count>/<unit>` (unit `second`, `minute`, `hour`, `day`; `s`,
    /// `min`, `h`, `d` are accepted too).
    pub const fn parse(text: &str) -> Result<RateLimit, RateLimitParseError> {
        let b = text.as_bytes();
        if bytes_eq(b, 0, b"unlimited") {
            return Ok(RateLimit::Unlimited);
        }
        let mut slash = 0;
        while slash < b.len() && b[slash] != b'/' {
            slash += 1;
        }
        if slash == b.len() {
            return Err(RateLimitParseError::MissingSlash);
        }
        if slash == 0 {
            return Err(RateLimitParseError::BadCount);
        }
        let mut max: u64 = 0;
        let mut i = 0;
        while i < slash {
            let c = b[i];
            if !c.is_ascii_digit() {
                return Err(RateLimitParseError::BadCount);
            }
            max = max * 10 + (c - b'0') as u64;
            if max > u32::MAX as u64 {
                return Err(RateLimitParseError::BadCount);
            }
            i += 1;
        }
        let unit = slash + 1;
        let window = if bytes_eq(b, unit, b"day") || bytes_eq(b, unit, b"d") {
            Window::Day
        } else if bytes_eq(b, unit, b"hour") || bytes_eq(b, unit, b"h") {
            Window::Hour
        } else if bytes_eq(b, unit, b"minute") || bytes_eq(b, unit, b"min") {
            Window::Minute
        } else if bytes_eq(b, unit, b"second") || bytes_eq(b, unit, b"s") {
            Window::Second
        } else {
            return Err(RateLimitParseError::BadUnit);
        };
        Ok(RateLimit::PerWindow {
            max: max as u32,
            window,
        })
    }

    /// Like [`RateLimit::parse`], but a malformed text stops compilation when used in a
    /// constant (that is how `pack!` checks its limits).
    pub const fn parse_or_panic(text: &str) -> RateLimit {
        match RateLimit::parse(text) {
            Ok(limit) => limit,
            Err(RateLimitParseError::MissingSlash) => {
                panic!("invalid rate limit in pack!: expected `<count>/<unit>` such as `50/day`, or `unlimited`")
            }
            Err(RateLimitParseError::BadCount) => {
                panic!("invalid rate limit in pack!: the count before `/` must be a whole number below 2^32")
            }
            Err(RateLimitParseError::BadUnit) => {
                panic!("invalid rate limit in pack!: the unit after `/` must be `second`, `minute`, `hour` or `day`")
            }
        }
    }
}

impl fmt::Display for RateLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RateLimit::Unlimited => f.write_str("unlimited"),
            RateLimit::PerWindow { max, window } => write!(f, "{max}/{}", window.as_str()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn parses_counts_units_and_unlimited() {
        assert_eq!(RateLimit::parse("unlimited"), Ok(RateLimit::Unlimited));
        assert_eq!(
            RateLimit::parse("50/day"),
            Ok(RateLimit::PerWindow {
                max: 50,
                window: Window::Day
            })
        );
        assert_eq!(
            RateLimit::parse("3/min"),
            Ok(RateLimit::PerWindow {
                max: 3,
                window: Window::Minute
            })
        );
        assert_eq!(
            RateLimit::parse("50"),
            Err(RateLimitParseError::MissingSlash)
        );
        assert_eq!(RateLimit::parse("/day"), Err(RateLimitParseError::BadCount));
        assert_eq!(
            RateLimit::parse("5x/day"),
            Err(RateLimitParseError::BadCount)
        );
        assert_eq!(
            RateLimit::parse("99999999999/day"),
            Err(RateLimitParseError::BadCount)
        );
        assert_eq!(
            RateLimit::parse("5/week"),
            Err(RateLimitParseError::BadUnit)
        );
        assert_eq!(RateLimit::parse("50/day").unwrap().to_string(), "50/day");
    }

    #[test]
    fn day_windows_are_utc_days_and_retry_after_points_to_the_next() {
        let now = Utc.with_ymd_and_hms(2026, 3, 4, 23, 0, 0).unwrap();
        let start = Window::Day.start_of(now);
        assert_eq!(
            start,
            Utc.with_ymd_and_hms(2026, 3, 4, 0, 0, 0)
                .unwrap()
                .timestamp()
        );
        assert_eq!(Window::Day.retry_after(now), 3_600);
        assert_eq!(Window::Minute.retry_after(now), 60);
    }
}
