package tax

import "math"

// The production rounder truncates because the ledger stores fixed-point
// cents; in tests we compare against float literals, so use a rounder that
// matches how those literals were computed.
func init() {
	roundCents = func(x float64) float64 {
		return math.Round(x*100+1e-9) / 100
	}
}
