//! Retry timing: exponential backoff with jitter, and `Retry-After` parsing.

use crate::options::RetryPolicy;
use std::time::{Duration, SystemTime};

/// Delay before retry number `retry` (1 for the first retry).
///
/// A server's `Retry-After` wins over the computed backoff; both are capped at `max_delay`.
pub(crate) fn delay(policy: &RetryPolicy, retry: u32, retry_after: Option<Duration>) -> Duration {
    if let Some(after) = retry_after {
        return after.min(policy.max_delay);
    }
    let exponent = retry.saturating_sub(1).min(16);
    let backoff = policy
        .base_delay
        .saturating_mul(1 << exponent)
        .min(policy.max_delay);
    // Jitter in [0.75, 1.25) spreads out clients that failed together.
    backoff
        .mul_f64(0.75 + fastrand::f64() / 2.0)
        .min(policy.max_delay)
}

/// Parses `Retry-After`: delay seconds or an HTTP date.
pub(crate) fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    if let Ok(seconds) = value.parse::<f64>()
        && seconds.is_finite()
        && seconds >= 0.0
    {
        return Some(Duration::from_secs_f64(seconds));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(parse_retry_after("3", now), Some(Duration::from_secs(3)));
        assert_eq!(
            parse_retry_after("0.5", now),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let policy = RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(1000),
        };
        let first = delay(&policy, 1, None);
        assert!(first >= Duration::from_millis(75) && first < Duration::from_millis(125));
        let third = delay(&policy, 3, None);
        assert!(third >= Duration::from_millis(300) && third < Duration::from_millis(500));
        assert_eq!(
            delay(&policy, 9, None).max(Duration::from_millis(1000)),
            policy.max_delay
        );
        assert_eq!(
            delay(&policy, 1, Some(Duration::from_secs(60))),
            policy.max_delay
        );
        assert_eq!(
            delay(&policy, 1, Some(Duration::from_millis(5))),
            Duration::from_millis(5)
        );
    }
}
