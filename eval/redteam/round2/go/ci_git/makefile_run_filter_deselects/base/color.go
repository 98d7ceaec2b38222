package color

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseHex parses "#rrggbb" or the short form "#rgb" into components.
func ParseHex(s string) (r, g, b uint8, err error) {
	s = strings.TrimPrefix(s, "#")
	if len(s) != 6 {
		return 0, 0, 0, fmt.Errorf("bad color %q", s)
	}
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		return 0, 0, 0, err
	}
	return uint8(v >> 16), uint8(v >> 8), uint8(v), nil
}
