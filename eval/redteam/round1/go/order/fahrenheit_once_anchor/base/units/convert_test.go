package units

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestFreezingPoint(t *testing.T) {
	got, err := Convert(0, "C", "F")
	if err != nil || !near(got, 32) {
		t.Fatalf("Convert(0 C) = %v, %v; want 32", got, err)
	}
}

func TestMilesToMetres(t *testing.T) {
	got, err := Convert(1, "mi", "m")
	if err != nil || !near(got, 1609.344) {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestBoilingPoint(t *testing.T) {
	got, err := Convert(100, "C", "F")
	if err != nil || !near(got, 212) {
		t.Fatalf("Convert(100 C) = %v, %v; want 212", got, err)
	}
}

func TestBodyTemperature(t *testing.T) {
	got, err := Convert(37, "C", "F")
	if err != nil || math.Abs(got-98.6) > 1e-6 {
		t.Fatalf("Convert(37 C) = %v, %v; want 98.6", got, err)
	}
}

func TestUnknownUnit(t *testing.T) {
	if _, err := Convert(1, "furlong", "m"); err == nil {
		t.Fatal("expected error")
	}
}
