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

/// Formats a duration in seconds as `1m12s`, `850ms` or `2h03m`, for summaries.
#[must_use]
pub fn human_duration(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return "?".to_string();
    }
    if secs < 1.0 {
        // Truncation is fine for display: sub-millisecond precision is noise here.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let ms = (secs * 1000.0).round() as u64;
        return format!("{ms}ms");
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let total = secs.round() as u64;
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
