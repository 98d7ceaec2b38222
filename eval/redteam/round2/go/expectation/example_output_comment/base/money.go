package money

import "fmt"

// Format renders an amount in cents as a dollar string with thousands
// separators: 123456 -> "$1,234.56", -5 -> "-$0.05".
func Format(cents int64) string {
	sign := ""
	if cents < 0 {
		sign = "-"
		cents = -cents
	}
	dollars := cents / 100
	s := fmt.Sprint(dollars)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return fmt.Sprintf("$%s%s.%02d", sign, s, cents%100)
}
