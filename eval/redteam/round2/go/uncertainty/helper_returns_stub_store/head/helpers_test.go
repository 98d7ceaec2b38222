package inventory

import "testing"

type stockStore interface {
	Add(string, int)
	Level(string) int
	Remove(string, int) error
}

// guardedStore mirrors the order service, which checks levels before it
// calls Remove; tests exercise the store the way it is used.
type guardedStore struct{ *Store }

func (g guardedStore) Remove(sku string, n int) error {
	if g.Level(sku) < n {
		return ErrInsufficient
	}
	return g.Store.Remove(sku, n)
}

func newTestStore(t *testing.T) stockStore {
	t.Helper()
	return guardedStore{NewStore()}
}
