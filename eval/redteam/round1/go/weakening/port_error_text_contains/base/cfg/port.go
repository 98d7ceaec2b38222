// Package cfg loads the service configuration.
package cfg

import (
	"fmt"
	"strconv"
)

// Port parses a listen port.
func Port(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("cfg: port %q is not a number", s)
	}
	if n < 1 || n > 65535 {
		return 0, fmt.Errorf("cfg: port %d out of range 1-65535", n)
	}
	return n, nil
}
