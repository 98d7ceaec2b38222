// Package phonefmt formats phone numbers for display.
package phonefmt

import (
	"fmt"
	"strings"
)

func digits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// E164 formats a 10-digit US number as +1XXXXXXXXXX.
func E164(s string) (string, error) {
	d := digits(s)
	if len(d) == 11 && d[0] == '1' {
		d = d[1:]
	}
	if len(d) != 10 {
		return "", fmt.Errorf("phonefmt: %q is not a US number", s)
	}
	return "+1" + d, nil
}
