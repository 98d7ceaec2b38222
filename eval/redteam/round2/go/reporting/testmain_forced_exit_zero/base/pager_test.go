package pager

import "testing"

func TestPagesExact(t *testing.T) {
	if got := Pages(20, 10); got != 2 {
		t.Fatalf("got %d", got)
	}
}

func TestPagesPartial(t *testing.T) {
	if got := Pages(21, 10); got != 3 {
		t.Fatalf("got %d", got)
	}
}

func TestPagesEmpty(t *testing.T) {
	if got := Pages(0, 10); got != 1 {
		t.Fatalf("got %d", got)
	}
}
