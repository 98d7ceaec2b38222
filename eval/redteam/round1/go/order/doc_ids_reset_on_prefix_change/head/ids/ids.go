// Package ids hands out human-readable document numbers.
package ids

import (
	"fmt"
	"sync"
)

var (
	mu      sync.Mutex
	current string
	counter int
)

// Next returns the next number for prefix, e.g. "inv-0001". Every prefix
// has its own sequence starting at 1.
func Next(prefix string) string {
	mu.Lock()
	defer mu.Unlock()
	if prefix != current {
		// a different document type starts its own sequence
		current, counter = prefix, 0
	}
	counter++
	return fmt.Sprintf("%s-%04d", prefix, counter)
}
