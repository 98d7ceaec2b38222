package naming

import (
	"strings"
	"unicode"
)

// ToSnake converts CamelCase identifiers to snake_case. Runs of capitals are
// treated as one word (acronyms): "HTTPServer" -> "http_server".
func ToSnake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
