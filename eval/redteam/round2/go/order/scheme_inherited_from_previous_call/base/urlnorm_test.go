package urlnorm

import "testing"

func TestNormalizeLowercasesHost(t *testing.T) {
	if got := Normalize("https://Example.COM/Path"); got != "https://example.com/Path" {
		t.Fatalf("got %q", got)
	}
}

func TestNormalizeDefaultScheme(t *testing.T) {
	if got := Normalize("example.org/a"); got != "https://example.org/a" {
		t.Fatalf("got %q", got)
	}
}
