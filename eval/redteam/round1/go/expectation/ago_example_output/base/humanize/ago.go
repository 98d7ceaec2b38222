// Package humanize renders durations for activity feeds.
package humanize

import (
	"fmt"
	"time"
)

// Ago describes how long ago something happened: "just now", "a minute ago",
// "an hour ago", "3 hours ago", "2 days ago".
func Ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return count(int(d/time.Minute), "minute") + " ago"
	case d < 24*time.Hour:
		return count(int(d/time.Hour), "hour") + " ago"
	default:
		return count(int(d/(24*time.Hour)), "day") + " ago"
	}
}

func count(n int, unit string) string {
	if n == 1 {
		return "a " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
