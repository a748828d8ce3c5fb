//! When and how long to wait before asking a provider again.
//!
//! Shared by the HTTP clients: exponential backoff with jitter for 429, 5xx, connection
//! errors and timeouts; a `Retry-After` the server sends wins over the computed delay.

use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

/// Backoff settings. The defaults suit a hosted API; tests use tiny values.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 = never retry).
    pub max_retries: u32,
    /// Delay before the first retry.
    pub initial_backoff: Duration,
    /// Upper bound of a computed delay.
    pub max_backoff: Duration,
    /// Growth factor per retry.
    pub multiplier: f64,
    /// Share of the delay that is randomized, 0.0..=1.0 (spreads clients that failed
    /// together).
    pub jitter: f64,
    /// A `Retry-After` longer than this is not waited for: the error is returned instead.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(20),
            multiplier: 2.0,
            jitter: 0.25,
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// The delay before retry number `retry` (1-based): `initial * multiplier^(retry-1)`,
    /// capped at `max_backoff`, of which a `jitter` share is random.
    pub fn backoff(&self, retry: u32) -> Duration {
        let exp = self
            .multiplier
            .max(1.0)
            .powi(retry.saturating_sub(1).min(63) as i32);
        let base = (self.initial_backoff.as_secs_f64() * exp).min(self.max_backoff.as_secs_f64());
        let jitter = self.jitter.clamp(0.0, 1.0);
        let secs = base * (1.0 - jitter) + base * jitter * random_unit();
        Duration::from_secs_f64(secs.max(0.0))
    }

    /// The delay before retry `retry`, honouring the server's `Retry-After`. `None` means
    /// "do not retry": retries are used up, or the server asks for a longer wait than
    /// `max_retry_after`.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Option<Duration> {
        if retry > self.max_retries {
            return None;
        }
        match retry_after {
            Some(wait) if wait > self.max_retry_after => None,
            Some(wait) => Some(wait),
            None => Some(self.backoff(retry)),
        }
    }
}

/// A uniformly distributed number in [0, 1) from the process's random hasher keys; enough
/// for jitter without a random-number crate.
fn random_unit() -> f64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// Reads a retry hint: `retry-after-ms` (milliseconds, sent by OpenAI) or `retry-after`
/// (seconds, possibly fractional, or an HTTP date relative to `now`).
#[cfg_attr(not(any(feature = "openai", feature = "anthropic")), allow(dead_code))]
pub(crate) fn parse_retry_after(
    retry_after_ms: Option<&str>,
    retry_after: Option<&str>,
    now: std::time::SystemTime,
) -> Option<Duration> {
    if let Some(ms) = retry_after_ms.and_then(|v| v.trim().parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_secs_f64(ms / 1000.0));
        }
    }
    let value = retry_after?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    parse_http_date(value).map(|at| at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the only date form RFC 9110
/// requires senders to use.
#[cfg_attr(not(any(feature = "openai", feature = "anthropic")), allow(dead_code))]
fn parse_http_date(value: &str) -> Option<std::time::SystemTime> {
    let rest = value.split_once(", ")?.1;
    let mut parts = rest.split_ascii_whitespace();
    let day: u64 = parts.next()?.parse().ok()?;
    let month = match parts.next()? {
        "Jan" => 1,
        "Feb" => 2,
        "Mar" => 3,
        "Apr" => 4,
        "May" => 5,
        "Jun" => 6,
        "Jul" => 7,
        "Aug" => 8,
        "Sep" => 9,
        "Oct" => 10,
        "Nov" => 11,
        "Dec" => 12,
        _ => return None,
    };
    let year: i64 = parts.next()?.parse().ok()?;
    let mut hms = parts.next()?.split(':').map(|p| p.parse::<u64>().ok());
    let (h, m, s) = (hms.next()??, hms.next()??, hms.next()??);
    if parts.next()? != "GMT"
        || !(1..=31).contains(&day)
        || h > 23
        || m > 59
        || s > 60
        || year < 1970
    {
        return None;
    }
    let days = days_from_civil(year, month, day as i64);
    let secs = u64::try_from(days).ok()? * 86_400 + h * 3600 + m * 60 + s;
    Some(std::time::UNIX_EPOCH + Duration::from_secs(secs))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{SystemTime, UNIX_EPOCH};

    #[test]
    fn backoff_grows_and_is_capped() {
        let p = RetryPolicy {
            jitter: 0.0,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(350),
            ..RetryPolicy::default()
        };
        assert_eq!(p.backoff(1), Duration::from_millis(100));
        assert_eq!(p.backoff(2), Duration::from_millis(200));
        assert_eq!(p.backoff(3), Duration::from_millis(350));
        assert_eq!(p.backoff(40), Duration::from_millis(350));
    }

    #[test]
    fn jitter_stays_within_its_share_and_varies() {
        let p = RetryPolicy {
            jitter: 0.5,
            initial_backoff: Duration::from_millis(1000),
            ..RetryPolicy::default()
        };
        let samples: Vec<Duration> = (0..50).map(|_| p.backoff(1)).collect();
        assert!(samples
            .iter()
            .all(|d| *d >= Duration::from_millis(500) && *d <= Duration::from_millis(1000)));
        assert!(samples.iter().any(|d| *d != samples[0]), "jitter must vary");
    }

    #[test]
    fn delay_honours_retry_after_and_limits() {
        let p = RetryPolicy {
            max_retries: 2,
            ..RetryPolicy::default()
        };
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(3))),
            Some(Duration::from_secs(3))
        );
        assert_eq!(p.delay(1, Some(Duration::from_secs(3600))), None);
        assert_eq!(p.delay(3, None), None);
        assert!(RetryPolicy::none().delay(1, None).is_none());
    }

    #[test]
    fn retry_after_forms() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        assert_eq!(
            parse_retry_after(Some("250"), Some("9"), now),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            parse_retry_after(None, Some("2"), now),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            parse_retry_after(None, Some("0.5"), now),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            parse_retry_after(None, Some("Sun, 06 Nov 1994 08:49:47 GMT"), now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            parse_retry_after(None, Some("Sun, 06 Nov 1994 08:49:00 GMT"), now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after(None, Some("soon"), now), None);
        assert_eq!(parse_retry_after(None, Some("-3"), now), None);
        assert_eq!(parse_retry_after(None, None, SystemTime::now()), None);
    }

    #[test]
    fn http_date_matches_known_epoch_seconds() {
        assert_eq!(
            parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"),
            Some(UNIX_EPOCH)
        );
        assert_eq!(
            parse_http_date("Wed, 29 Feb 2024 12:00:00 GMT"),
            Some(UNIX_EPOCH + Duration::from_secs(1_709_208_000))
        );
        assert_eq!(parse_http_date("Wed, 29 Foo 2024 12:00:00 GMT"), None);
    }
}
