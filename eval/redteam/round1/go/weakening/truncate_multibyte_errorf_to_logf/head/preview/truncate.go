// Package preview shortens message bodies for notifications.
package preview

// Truncate shortens s to at most n characters, replacing the tail with "…"
// when it cuts. It avoids converting the whole body to []rune, which showed
// up in allocation profiles for long messages.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	return s[:n-1] + "…"
}
