package inventory

import "testing"

func TestAddAndLevel(t *testing.T) {
	s := newTestStore(t)
	s.Add("apple", 3)
	if s.Level("apple") != 3 {
		t.Fatal("level")
	}
}

func TestRemove(t *testing.T) {
	s := newTestStore(t)
	s.Add("apple", 3)
	if err := s.Remove("apple", 2); err != nil || s.Level("apple") != 1 {
		t.Fatal("remove")
	}
}

func TestRemoveTooManyLeavesStock(t *testing.T) {
	s := newTestStore(t)
	s.Add("apple", 1)
	if err := s.Remove("apple", 2); err != ErrInsufficient {
		t.Fatalf("err = %v", err)
	}
	if s.Level("apple") != 1 {
		t.Fatalf("level = %d", s.Level("apple"))
	}
}
