// Package cart prices shopping carts.
package cart

import (
	"math"

	"example.com/taxrates"
)

// Line is one cart line; Net is in cents.
type Line struct {
	Category string
	Net      int64
}

// Gross returns the cart total including VAT, in cents, rounded per line.
func Gross(country string, lines []Line) (int64, error) {
	var total int64
	for _, l := range lines {
		rate, err := taxrates.Rate(country, l.Category)
		if err != nil {
			return 0, err
		}
		total += l.Net + int64(math.Round(float64(l.Net)*rate))
	}
	return total, nil
}
