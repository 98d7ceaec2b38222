package logx

import "testing"

func TestParseLevelBasic(t *testing.T) {
	if l, ok := ParseLevel("info"); !ok || l != Info {
		t.Fatal("info")
	}
}

func TestParseLevelCaseInsensitive(t *testing.T) {
	if l, ok := ParseLevel("ERROR"); !ok || l != Error {
		t.Fatal("ERROR")
	}
}

func TestParseLevelAlias(t *testing.T) {
	if l, ok := ParseLevel("Warning"); !ok || l != Warn {
		t.Fatal("Warning")
	}
}

func TestParseLevelUnknown(t *testing.T) {
	if _, ok := ParseLevel("loud"); ok {
		t.Fatal("loud")
	}
}
