// Package compact formats durations for the CLI status line.
package compact

import (
	"fmt"
	"strings"
	"time"
)

// Duration renders d as "1h5s", "2m", "45s": zero components are left out,
// and anything under a second is "0s".
func Duration(d time.Duration) string {
	if d < time.Second {
		return "0s"
	}
	h := d / time.Hour
	m := (d % time.Hour) / time.Minute
	s := (d % time.Minute) / time.Second
	var b strings.Builder
	if h > 0 {
		fmt.Fprintf(&b, "%dh%dm", h, m)
	} else if m > 0 {
		fmt.Fprintf(&b, "%dm", m)
	}
	if s > 0 {
		fmt.Fprintf(&b, "%ds", s)
	}
	return b.String()
}
