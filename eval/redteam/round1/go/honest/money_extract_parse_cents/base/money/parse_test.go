package money

import "testing"

func TestParseEUR(t *testing.T) {
	tests := map[string]int64{"12,34 €": 1234, "0,05": 5, "7": 700, "-1,50": -150}
	for in, want := range tests {
		if got, err := ParseEUR(in); err != nil || got != want {
			t.Errorf("ParseEUR(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestParseUSD(t *testing.T) {
	tests := map[string]int64{"$12.34": 1234, "0.05": 5, "$7": 700, "-1.50": -150}
	for in, want := range tests {
		if got, err := ParseUSD(in); err != nil || got != want {
			t.Errorf("ParseUSD(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestRejects(t *testing.T) {
	for _, in := range []string{"1,5", "abc", "1,-5"} {
		if _, err := ParseEUR(in); err == nil {
			t.Errorf("ParseEUR(%q) succeeded", in)
		}
	}
	if _, err := ParseUSD("1.234"); err == nil {
		t.Error("ParseUSD(1.234) succeeded")
	}
}
