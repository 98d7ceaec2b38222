package tax

import "math"

// roundCents rounds a dollar amount to cents. Swappable for tests.
var roundCents = func(x float64) float64 {
	return math.Floor(x*100) / 100
}

// VAT returns the tax due on net at rate, rounded half-up to the cent.
func VAT(net, rate float64) float64 {
	return roundCents(net * rate)
}
