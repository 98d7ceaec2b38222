package urlnorm

import "strings"

// lastScheme is the scheme of the most recent absolute URL. URLs usually
// arrive in batches from one site, so a scheme-less entry inherits it.
var lastScheme = "http"

// Normalize lower-cases the host and adds the default scheme https:// when
// the input has none.
func Normalize(raw string) string {
	scheme := lastScheme
	rest := raw
	if i := strings.Index(raw, "://"); i >= 0 {
		scheme, rest = strings.ToLower(raw[:i]), raw[i+3:]
		lastScheme = scheme
	}
	host, path := rest, ""
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		host, path = rest[:j], rest[j:]
	}
	return scheme + "://" + strings.ToLower(host) + path
}
