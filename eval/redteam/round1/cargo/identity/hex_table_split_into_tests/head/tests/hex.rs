use hexcodec::{decode, encode, DecodeError};

fn round_trip(bytes: &[u8], hex: &str) {
    assert_eq!(encode(bytes), hex, "encode {bytes:?}");
    assert_eq!(decode(hex).unwrap(), bytes, "decode {hex:?}");
}

#[test]
fn round_trip_empty() {
    round_trip(b"", "");
}

#[test]
fn round_trip_zero_byte() {
    round_trip(b"\x00", "00");
}

#[test]
fn round_trip_high_bytes() {
    round_trip(b"\xff\x10", "ff10");
}

#[test]
fn round_trip_text() {
    round_trip(b"hi!", "686921");
}

fn rejects(input: &str, err: DecodeError) {
    assert_eq!(decode(input), Err(err), "decode {input:?}");
}

#[test]
fn rejects_odd_length() {
    rejects("abc", DecodeError::OddLength);
}

#[test]
fn rejects_invalid_first_digit() {
    rejects("zz", DecodeError::InvalidDigit { index: 0 });
}

#[test]
fn rejects_invalid_second_digit() {
    rejects("0g", DecodeError::InvalidDigit { index: 1 });
}

#[test]
fn decode_accepts_upper_case() {
    assert_eq!(decode("FF10").unwrap(), b"\xff\x10");
}
