//! Moments of a trace: wall-clock time for the span's start, a monotonic clock for durations.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// A moment: when (nanoseconds since the Unix epoch) and a monotonic instant to measure from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stamp {
    pub unix_nano: u64,
    instant: Instant,
}

impl Stamp {
    pub(crate) fn now() -> Self {
        let unix_nano = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| {
                u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX)
            });
        Self {
            unix_nano,
            instant: Instant::now(),
        }
    }

    /// Milliseconds from `self` to `later` (0 when `later` is earlier).
    pub(crate) fn ms_until(&self, later: &Stamp) -> f64 {
        millis(later.instant.saturating_duration_since(self.instant))
    }

    /// Milliseconds from `self` to now.
    pub(crate) fn elapsed_ms(&self) -> f64 {
        millis(self.instant.elapsed())
    }
}

/// Milliseconds to the microsecond: finer digits are clock noise in a trace file.
fn millis(duration: std::time::Duration) -> f64 {
    (duration.as_secs_f64() * 1_000_000.0).round() / 1000.0
}
