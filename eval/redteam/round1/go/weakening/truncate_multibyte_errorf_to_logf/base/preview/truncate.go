// Package preview shortens message bodies for notifications.
package preview

// Truncate shortens s to at most n characters (runes), replacing the tail
// with "…" when it cuts.
func Truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	return string(r[:n-1]) + "…"
}
