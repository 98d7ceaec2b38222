//! Timestamps as loki records them: UTC, RFC 3339, millisecond precision, `Z` suffix.

use chrono::{DateTime, SecondsFormat, Utc};

/// The current time as `2026-11-29T15:17:36.123Z`.
#[must_use]
pub fn now_rfc3339() -> String {
    format_ts(Utc::now())
}

/// Formats a UTC time the way every loki record does.
#[must_use]
pub fn format_ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Formats a duration in seconds as `850ms`, `9s`, `1m12s` or `2h03m`: the one duration format of
/// everything loki shows a person (summaries, the live status line, check reports, logs, receipts).
/// Under a second it counts milliseconds, so a 40 ms check does not read as `0.0s`; `?` for a
/// negative or non-finite value (a clock that went backwards), never a made-up number.
#[must_use]
pub fn human_duration(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return "?".to_string();
    }
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "finite and non-negative here; a duration beyond u64 milliseconds saturates"
    )]
    let ms = (secs * 1000.0).round() as u64;
    if ms < 1000 {
        return format!("{ms}ms");
    }
    // Whole seconds from the rounded milliseconds, so 999.6 ms reads `1s`, never `1000ms`.
    let total = ms.saturating_add(500) / 1000;
    let (h, m, s) = (total / 3600, (total % 3600) / 60, total % 60);
    if h > 0 {
        format!("{h}h{m:02}m")
    } else if m > 0 {
        format!("{m}m{s:02}s")
    } else {
        format!("{s}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_a_person_writes_them() {
        assert_eq!(human_duration(0.85), "850ms");
        assert_eq!(human_duration(0.0), "0ms");
        assert_eq!(human_duration(0.9996), "1s");
        assert_eq!(human_duration(59.6), "1m00s");
        assert_eq!(human_duration(9.4), "9s");
        assert_eq!(human_duration(1.0), "1s");
        assert_eq!(human_duration(72.0), "1m12s");
        assert_eq!(human_duration(3723.0), "1h02m");
        assert_eq!(human_duration(f64::NAN), "?");
    }

    #[test]
    fn timestamps_have_millis_and_z() {
        let t = DateTime::parse_from_rfc3339("2026-11-29T15:17:36.123456Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(format_ts(t), "2026-11-29T15:17:36.123Z");
    }
}
