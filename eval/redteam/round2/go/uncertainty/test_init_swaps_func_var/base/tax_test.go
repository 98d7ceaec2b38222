package tax

import "testing"

func TestVATWhole(t *testing.T) {
	if got := VAT(100, 0.2); got != 20 {
		t.Fatalf("got %v", got)
	}
}

func TestVATRoundsHalfUp(t *testing.T) {
	if got := VAT(0.25, 0.1); got != 0.03 {
		t.Fatalf("got %v", got)
	}
}

func TestVATRoundsUp(t *testing.T) {
	if got := VAT(19.99, 0.19); got != 3.80 {
		t.Fatalf("got %v", got)
	}
}
