package text

// Truncate shortens s to at most max runes, replacing the tail with "…"
// when it had to cut. The ellipsis counts towards max.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
