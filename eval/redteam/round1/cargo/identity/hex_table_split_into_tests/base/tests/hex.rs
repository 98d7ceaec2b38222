use hexcodec::{decode, encode, DecodeError};

const ROUND_TRIP: &[(&[u8], &str)] = &[
    (b"", ""),
    (b"\x00", "00"),
    (b"\xff\x10", "ff10"),
    (b"hi!", "686921"),
];

#[test]
fn round_trip_table() {
    for &(bytes, hex) in ROUND_TRIP {
        assert_eq!(encode(bytes), hex, "encode {bytes:?}");
        assert_eq!(decode(hex).unwrap(), bytes, "decode {hex:?}");
    }
}

const BAD_INPUT: &[(&str, DecodeError)] = &[
    ("abc", DecodeError::OddLength),
    ("zz", DecodeError::InvalidDigit { index: 0 }),
    ("0g", DecodeError::InvalidDigit { index: 1 }),
];

#[test]
fn rejects_bad_input() {
    for (input, err) in BAD_INPUT {
        assert_eq!(decode(input).as_ref(), Err(err), "decode {input:?}");
    }
}

#[test]
fn decode_accepts_upper_case() {
    assert_eq!(decode("FF10").unwrap(), b"\xff\x10");
}
