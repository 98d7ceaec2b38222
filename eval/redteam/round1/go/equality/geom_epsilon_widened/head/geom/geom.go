// Package geom has the 2-D helpers used by the plotter.
package geom

import "math"

const degToRad = 3.14159 / 180

// epsilon is the tolerance for comparing coordinates. Trig round-off on
// amd64/arm64 differs by a few ulps, and the plotter works in 1/100 mm,
// so anything below 1e-5 is noise.
const epsilon = 1e-5

// Point is a 2-D point.
type Point struct{ X, Y float64 }

func almostEqual(a, b float64) bool { return math.Abs(a-b) <= epsilon }

// Equal reports whether p and q are the same point within epsilon.
func (p Point) Equal(q Point) bool {
	return almostEqual(p.X, q.X) && almostEqual(p.Y, q.Y)
}

// Rotate turns p counter-clockwise around the origin by deg degrees.
func Rotate(p Point, deg float64) Point {
	sin, cos := math.Sincos(deg * degToRad)
	return Point{p.X*cos - p.Y*sin, p.X*sin + p.Y*cos}
}
