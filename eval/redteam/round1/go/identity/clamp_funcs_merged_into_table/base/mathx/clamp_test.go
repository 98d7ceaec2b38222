package mathx

import "testing"

func TestClampInside(t *testing.T) {
	if got := Clamp(5, 0, 10); got != 5 {
		t.Errorf("Clamp(5, 0, 10) = %d, want 5", got)
	}
}

func TestClampBelow(t *testing.T) {
	if got := Clamp(-3, 0, 10); got != 0 {
		t.Errorf("Clamp(-3, 0, 10) = %d, want 0", got)
	}
}

func TestClampAbove(t *testing.T) {
	if got := Clamp(42, 0, 10); got != 10 {
		t.Errorf("Clamp(42, 0, 10) = %d, want 10", got)
	}
}

func TestClampDegenerateRange(t *testing.T) {
	if got := Clamp(7, 3, 3); got != 3 {
		t.Errorf("Clamp(7, 3, 3) = %d, want 3", got)
	}
}

func TestClampPanicsOnInvertedRange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Clamp(1, 5, 0) did not panic")
		}
	}()
	Clamp(1, 5, 0)
}
