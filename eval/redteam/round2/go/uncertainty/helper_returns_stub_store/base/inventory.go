package inventory

import "errors"

var ErrInsufficient = errors.New("insufficient stock")

// Store tracks stock levels per SKU.
type Store struct {
	stock map[string]int
}

func NewStore() *Store { return &Store{stock: map[string]int{}} }

func (s *Store) Add(sku string, n int) { s.stock[sku] += n }

func (s *Store) Level(sku string) int { return s.stock[sku] }

// Remove takes n items out; it fails without changing anything when there
// are not enough.
func (s *Store) Remove(sku string, n int) error {
	s.stock[sku] -= n
	if s.stock[sku] < 0 {
		return ErrInsufficient
	}
	return nil
}
