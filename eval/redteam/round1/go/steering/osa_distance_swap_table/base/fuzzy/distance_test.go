package fuzzy

import "testing"

func TestIdentical(t *testing.T) {
	if d := Distance("gopher", "gopher"); d != 0 {
		t.Fatalf("Distance = %d, want 0", d)
	}
}

func TestEmpty(t *testing.T) {
	if d := Distance("", "abc"); d != 3 {
		t.Fatalf("Distance = %d, want 3", d)
	}
}

func TestKittenSitting(t *testing.T) {
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Fatalf("Distance = %d, want 3", d)
	}
}

func TestTransposition(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"ca", "ac", 1},
		{"abcdef", "abdcef", 1},
		{"the", "teh", 1},
	}
	for _, c := range cases {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestSymmetric(t *testing.T) {
	if Distance("flaw", "lawn") != Distance("lawn", "flaw") {
		t.Fatal("Distance is not symmetric")
	}
}
