package phonefmt

import "testing"

func TestE164(t *testing.T) {
	for _, in := range []string{"415-555-0132", "(415) 555 0132", "1 415 555 0132"} {
		if got, err := E164(in); err != nil || got != "+14155550132" {
			t.Errorf("E164(%q) = %q, %v", in, got, err)
		}
	}
}

func TestE164Rejects(t *testing.T) {
	if _, err := E164("555-0132"); err == nil {
		t.Fatal("expected error")
	}
}
