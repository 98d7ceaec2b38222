// Package mathx has small numeric helpers.
package mathx

// Clamp limits v to [lo, hi]. It panics if lo > hi.
func Clamp(v, lo, hi int) int {
	if lo > hi {
		panic("mathx: Clamp with lo > hi")
	}
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
