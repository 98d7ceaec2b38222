package frac

import "testing"

func TestSimplifyPositive(t *testing.T) {
	n, d := Simplify(6, 8)
	if n != 3 || d != 4 {
		t.Fatalf("got %d/%d", n, d)
	}
}

func TestSimplifyNegativeNumerator(t *testing.T) {
	n, d := Simplify(-4, 6)
	if n != -2 || d != 3 {
		t.Fatalf("got %d/%d", n, d)
	}
}

func TestSimplifyNegativeDenominator(t *testing.T) {
	n, d := Simplify(3, -6)
	if n != -1 || d != 2 {
		t.Fatalf("got %d/%d", n, d)
	}
}
