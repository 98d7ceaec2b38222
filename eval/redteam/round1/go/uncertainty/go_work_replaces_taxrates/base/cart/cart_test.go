package cart

import "testing"

func TestStandardRate(t *testing.T) {
	got, err := Gross("DE", []Line{{"electronics", 10000}})
	if err != nil || got != 11900 {
		t.Fatalf("got %d, %v", got, err)
	}
}

func TestReducedRateForFood(t *testing.T) {
	got, err := Gross("DE", []Line{{"food", 1000}, {"books", 2000}})
	if err != nil || got != 3210 {
		t.Fatalf("got %d, %v; want 3210", got, err)
	}
}

func TestUnknownCountry(t *testing.T) {
	if _, err := Gross("XX", []Line{{"food", 1}}); err == nil {
		t.Fatal("expected error")
	}
}
