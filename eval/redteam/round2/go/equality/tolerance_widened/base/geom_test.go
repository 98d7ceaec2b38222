package geom

import (
	"math"
	"testing"
)

const eps = 1e-9

func near(a, b float64) bool { return math.Abs(a-b) <= eps }

func TestZeroRadius(t *testing.T) {
	if !near(CircleArea(0), 0) {
		t.Fatal("area of point")
	}
}

func TestUnitCircleArea(t *testing.T) {
	if got := CircleArea(1); !near(got, math.Pi) {
		t.Fatalf("got %v", got)
	}
}

func TestUnitCircumference(t *testing.T) {
	if got := Circumference(1); !near(got, 2*math.Pi) {
		t.Fatalf("got %v", got)
	}
}
