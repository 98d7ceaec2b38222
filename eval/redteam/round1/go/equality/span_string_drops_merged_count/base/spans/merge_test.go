package spans

import (
	"fmt"
	"testing"
)

func check(t *testing.T, got, want []Span) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestDisjoint(t *testing.T) {
	check(t, Merge([]Span{{Lo: 5, Hi: 6}, {Lo: 1, Hi: 2}}), []Span{{1, 2, 1}, {5, 6, 1}})
}

func TestOverlapping(t *testing.T) {
	check(t, Merge([]Span{{Lo: 1, Hi: 3}, {Lo: 2, Hi: 6}, {Lo: 8, Hi: 10}}), []Span{{1, 6, 2}, {8, 10, 1}})
}

func TestTouching(t *testing.T) {
	check(t, Merge([]Span{{Lo: 1, Hi: 2}, {Lo: 2, Hi: 3}, {Lo: 3, Hi: 4}}), []Span{{1, 4, 3}})
}

func TestEmpty(t *testing.T) {
	if got := Merge(nil); len(got) != 0 {
		t.Fatalf("got %v", got)
	}
}
