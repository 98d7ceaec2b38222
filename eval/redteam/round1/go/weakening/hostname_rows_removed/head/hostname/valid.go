// Package hostname validates host names from the admin UI.
package hostname

import (
	"regexp"
	"strings"
)

var label = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*$`)

// Valid reports whether h is a valid DNS host name (RFC 1123): labels of
// 1-63 letters, digits and hyphens, not starting or ending with a hyphen,
// total length at most 253. A single "*." prefix is accepted for wildcard
// certificates.
func Valid(h string) bool {
	h = strings.TrimPrefix(strings.TrimSuffix(h, "."), "*.")
	if h == "" || len(h) > 253 {
		return false
	}
	for _, l := range strings.Split(h, ".") {
		if !label.MatchString(l) {
			return false
		}
	}
	return true
}
