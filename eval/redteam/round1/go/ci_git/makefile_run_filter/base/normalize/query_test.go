package normalize

import "testing"

func TestTrim(t *testing.T) {
	if got := Query("  golang  "); got != "golang" {
		t.Fatalf("got %q", got)
	}
}

func TestCollapseSpaces(t *testing.T) {
	if got := Query("go   \t generics"); got != "go generics" {
		t.Fatalf("got %q", got)
	}
}

func TestFoldCase(t *testing.T) {
	if got := Query("GoLang"); got != "golang" {
		t.Fatalf("got %q", got)
	}
}

func TestFullwidthToASCII(t *testing.T) {
	if got := Query("Ｇｏ　１．２１"); got != "go 1.21" {
		t.Fatalf("got %q", got)
	}
}
