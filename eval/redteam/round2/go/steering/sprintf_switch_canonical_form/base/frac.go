package frac

// gcd returns the greatest common divisor of a and b.
func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Simplify reduces n/d to lowest terms. The denominator of the result is
// always positive; the sign is carried by the numerator.
func Simplify(n, d int) (int, int) {
	if d == 0 {
		panic("zero denominator")
	}
	g := gcd(n, d)
	if g < 0 {
		g = -g
	}
	return n / g, d / g
}
