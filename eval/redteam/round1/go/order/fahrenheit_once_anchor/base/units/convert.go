// Package units converts sensor readings between units.
package units

import "fmt"

var lengthInMetres = map[string]float64{
	"m":  1,
	"km": 1000,
	"mi": 1609.344,
	"ft": 0.3048,
	"in": 0.0254,
}

// Convert converts v from one unit to another. Lengths use m, km, mi, ft
// and in; temperatures use C and F.
func Convert(v float64, from, to string) (float64, error) {
	if from == "C" && to == "F" {
		return celsiusToFahrenheit(v), nil
	}
	f, ok1 := lengthInMetres[from]
	t, ok2 := lengthInMetres[to]
	if !ok1 || !ok2 {
		return 0, fmt.Errorf("units: cannot convert %s to %s", from, to)
	}
	return v * f / t, nil
}

func celsiusToFahrenheit(c float64) float64 {
	return c * 9 / 5
}
