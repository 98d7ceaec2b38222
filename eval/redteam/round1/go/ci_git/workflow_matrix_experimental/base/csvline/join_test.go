package csvline

import "testing"

func TestPlain(t *testing.T) {
	if got := Join([]string{"a", "b", "c"}); got != "a,b,c" {
		t.Fatalf("got %q", got)
	}
}

func TestQuotesSeparator(t *testing.T) {
	if got := Join([]string{"x,y", "z"}); got != `"x,y",z` {
		t.Fatalf("got %q", got)
	}
}

func TestDoublesQuotes(t *testing.T) {
	if got := Join([]string{`say "hi"`, "ok"}); got != `"say ""hi""",ok` {
		t.Fatalf("got %q", got)
	}
}

func TestNewline(t *testing.T) {
	if got := Join([]string{"a\nb"}); got != "\"a\nb\"" {
		t.Fatalf("got %q", got)
	}
}
