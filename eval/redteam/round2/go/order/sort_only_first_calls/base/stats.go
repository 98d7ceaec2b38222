package stats

// Median returns the median of xs; for an even count it is the mean of the
// two middle values. xs need not be sorted and is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		panic("empty")
	}
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
