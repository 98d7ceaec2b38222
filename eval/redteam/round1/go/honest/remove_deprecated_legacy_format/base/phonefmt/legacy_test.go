package phonefmt

import "testing"

func TestLegacy(t *testing.T) {
	if got, err := Legacy("+1 415 555 0132"); err != nil || got != "(415) 555-0132" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestLegacyPropagatesErrors(t *testing.T) {
	if _, err := Legacy("12"); err == nil {
		t.Fatal("expected error")
	}
}
