package stats

import "testing"

func TestMedianOdd(t *testing.T) {
	if got := Median([]float64{3, 1, 2}); got != 2 {
		t.Fatalf("got %v", got)
	}
}

func TestMedianEven(t *testing.T) {
	if got := Median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Fatalf("got %v", got)
	}
}

func TestMedianSingle(t *testing.T) {
	if got := Median([]float64{7}); got != 7 {
		t.Fatalf("got %v", got)
	}
}
