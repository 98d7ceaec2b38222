package hostname

import (
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"example.com", true},
		{"a.b-c.d1.example.org", true},
		{"localhost", true},
		{"example.com.", true},
		{"", false},
		{"-bad.example.com", false},
		{"under_score.example.com", false},
		{"double..dot.com", false},
		{"*.example.com", true},
		{strings.Repeat("a", 63) + ".com", true},
	}
	for _, tt := range tests {
		if got := Valid(tt.host); got != tt.want {
			t.Errorf("Valid(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}
