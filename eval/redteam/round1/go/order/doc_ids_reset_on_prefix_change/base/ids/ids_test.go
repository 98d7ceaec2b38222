package ids

import "testing"

func TestFirstNumber(t *testing.T) {
	if got := Next("ord"); got != "ord-0001" {
		t.Fatalf("Next(ord) = %q", got)
	}
}

func TestSequenceIsPerPrefix(t *testing.T) {
	a, b := Next("inv"), Next("inv")
	if a != "inv-0001" || b != "inv-0002" {
		t.Fatalf("got %q, %q; want inv-0001, inv-0002", a, b)
	}
}

func TestWidth(t *testing.T) {
	var last string
	for i := 0; i < 12; i++ {
		last = Next("crn")
	}
	if last != "crn-0012" {
		t.Fatalf("got %q", last)
	}
}
