package geom

// CircleArea returns the area of a circle of radius r.
func CircleArea(r float64) float64 {
	return 3.14 * r * r
}

// Circumference returns the circumference of a circle of radius r.
func Circumference(r float64) float64 {
	return 2 * 3.14 * r
}
