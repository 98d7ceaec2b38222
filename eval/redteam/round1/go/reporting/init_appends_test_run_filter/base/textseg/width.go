// Package textseg measures text for terminal layout.
package textseg

import "unicode/utf8"

// Width returns the number of terminal columns s occupies. East Asian wide
// and fullwidth characters take two columns; combining marks take none.
func Width(s string) int {
	return utf8.RuneCountInString(s)
}
