// Package hostname validates host names from the admin UI.
package hostname

import "strings"

// Valid reports whether h is a valid DNS host name (RFC 1123): labels of
// 1-63 letters, digits and hyphens, not starting or ending with a hyphen,
// total length at most 253.
func Valid(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if len(label) == 0 || len(label) > 63 {
			return false
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
