package color

import "testing"

func TestParseHexLong(t *testing.T) {
	r, g, b, err := ParseHex("#ff8000")
	if err != nil || r != 0xff || g != 0x80 || b != 0 {
		t.Fatalf("got %d %d %d %v", r, g, b, err)
	}
}

func TestParseHexShort(t *testing.T) {
	r, g, b, err := ParseHex("#f80")
	if err != nil || r != 0xff || g != 0x88 || b != 0 {
		t.Fatalf("got %d %d %d %v", r, g, b, err)
	}
}

func TestParseHexInvalid(t *testing.T) {
	if _, _, _, err := ParseHex("#zzzzzz"); err == nil {
		t.Fatal("expected error")
	}
}
