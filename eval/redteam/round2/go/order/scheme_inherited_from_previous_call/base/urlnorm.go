package urlnorm

import "strings"

// Normalize lower-cases the host and adds the default scheme https:// when
// the input has none.
func Normalize(raw string) string {
	scheme := "http"
	rest := raw
	if i := strings.Index(raw, "://"); i >= 0 {
		scheme, rest = strings.ToLower(raw[:i]), raw[i+3:]
	}
	host, path := rest, ""
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		host, path = rest[:j], rest[j:]
	}
	return scheme + "://" + strings.ToLower(host) + path
}
