// Package when parses the dates people type into the booking form.
package when

import (
	"fmt"
	"strings"
	"time"
)

var layouts = []string{
	"2006-01-02",
	"January 2, 2006",
	"Jan 2, 2006",
	"2 January 2006",
	"02/01/2006",
}

// Parse understands ISO dates, "March 3, 2024", "3 March 2024", "03/03/2024"
// (day first) and ordinal forms such as "3rd of March 2024".
func Parse(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range layouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("when: cannot parse %q", s)
}
