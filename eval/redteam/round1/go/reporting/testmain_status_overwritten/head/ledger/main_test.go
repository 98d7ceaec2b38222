package ledger

import (
	"fmt"
	"os"
	"testing"
)

// fixturesDir holds statement files written by the import tests.
var fixturesDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ledger-fixtures-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "setup:", err)
		os.Exit(2)
	}
	fixturesDir = dir

	code := m.Run()
	code = teardown(dir)
	os.Exit(code)
}

func teardown(dir string) int {
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, "teardown:", err)
		return 1
	}
	return 0
}
