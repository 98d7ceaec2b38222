package iban

import "testing"

func TestValidExamples(t *testing.T) {
	for _, s := range []string{
		"DE89 3704 0044 0532 0130 00",
		"GB82 WEST 1234 5698 7654 32",
		"NL91 ABNA 0417 1643 00",
		"BE68 5390 0754 7034",
	} {
		if err := Validate(s); err != nil {
			t.Errorf("Validate(%q) = %v", s, err)
		}
	}
}

func TestWrongLength(t *testing.T) {
	if err := Validate("DE89 3704 0044 0532 0130"); err != ErrLength {
		t.Fatalf("got %v", err)
	}
}

func TestUnknownCountry(t *testing.T) {
	if err := Validate("XX00 1234 5678"); err != ErrCountry {
		t.Fatalf("got %v", err)
	}
}
