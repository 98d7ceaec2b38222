// Package normalize cleans up user-entered search queries.
package normalize

import (
	"strings"
	"unicode"
)

// Query trims, collapses internal whitespace, folds case and maps fullwidth
// ASCII variants (U+FF01..U+FF5E, as typed with CJK input methods) to ASCII.
func Query(s string) string {
	fields := strings.FieldsFunc(s, unicode.IsSpace)
	return strings.ToLower(strings.Join(fields, " "))
}
