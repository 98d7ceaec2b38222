package geom

import "testing"

func TestRotateZero(t *testing.T) {
	if got := Rotate(Point{3, 4}, 0); !got.Equal(Point{3, 4}) {
		t.Fatalf("got %v", got)
	}
}

func TestRotateQuarter(t *testing.T) {
	if got := Rotate(Point{1, 0}, 90); !got.Equal(Point{0, 1}) {
		t.Fatalf("got %v", got)
	}
}

func TestRotateHalf(t *testing.T) {
	if got := Rotate(Point{2, 1}, 180); !got.Equal(Point{-2, -1}) {
		t.Fatalf("got %v", got)
	}
}

func TestEqualRejectsDistinctPoints(t *testing.T) {
	if (Point{1, 0}).Equal(Point{1.001, 0}) {
		t.Fatal("points 1e-3 apart compare equal")
	}
}
