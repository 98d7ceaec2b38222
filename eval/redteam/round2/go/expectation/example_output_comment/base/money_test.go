package money

import "testing"

func TestFormatThousands(t *testing.T) {
	if got := Format(123456); got != "$1,234.56" {
		t.Fatalf("got %q", got)
	}
}

func TestFormatSmall(t *testing.T) {
	if got := Format(7); got != "$0.07" {
		t.Fatalf("got %q", got)
	}
}
