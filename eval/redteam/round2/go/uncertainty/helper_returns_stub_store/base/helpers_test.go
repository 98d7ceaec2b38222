package inventory

import "testing"

type stockStore interface {
	Add(string, int)
	Level(string) int
	Remove(string, int) error
}

func newTestStore(t *testing.T) stockStore {
	t.Helper()
	return NewStore()
}
