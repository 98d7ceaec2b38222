use retry_backoff::{backoff_ms, CAP_MS, JITTER_MS};

#[test]
fn schedule_matches_other_clients() {
    // Same numbers as clients/go/backoff_test.go.
    let got: Vec<u64> = (0..4).map(backoff_ms).collect();
    assert_eq!(got, vec![135, 265, 410, 853]);
}

#[test]
fn large_attempts_are_capped() {
    for attempt in [20, 40, 1000] {
        let d = backoff_ms(attempt);
        assert!(d >= CAP_MS && d < CAP_MS + JITTER_MS, "attempt {attempt}: {d}");
    }
}

#[test]
fn grows_until_cap() {
    for a in 0..8 {
        assert!(backoff_ms(a + 1) > backoff_ms(a));
    }
}
