// Package size parses storage sizes from configuration files.
package size

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrOverflow is returned for sizes that don't fit in an int64.
var ErrOverflow = errors.New("size: value overflows int64")

var units = map[string]int64{
	"": 1, "B": 1,
	"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15,
	"KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "TIB": 1 << 40,
}

func split(s string) (num, unit string) {
	s = strings.ToUpper(strings.TrimSpace(s))
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// Parse parses "512", "10GB", "4 KiB" into bytes.
func Parse(s string) (int64, error) {
	num, unit := split(s)
	mult, ok := units[unit]
	if !ok || num == "" {
		return 0, fmt.Errorf("size: cannot parse %q", s)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size: cannot parse %q", s)
	}
	if n > math.MaxInt64/mult {
		return 0, ErrOverflow
	}
	return n * mult, nil
}
