package naming

import "testing"

func TestToSnakeSimple(t *testing.T) {
	if got := ToSnake("userName"); got != "user_name" {
		t.Fatalf("got %q", got)
	}
}

func TestToSnakeLeadingCapital(t *testing.T) {
	if got := ToSnake("User"); got != "user" {
		t.Fatalf("got %q", got)
	}
}

func TestToSnakeAcronyms(t *testing.T) {
	cases := map[string]string{
		"HTTPServer": "http_server",
		"parseJSON":  "parse_json",
	}
	for in, want := range cases {
		if got := ToSnake(in); got != want {
			t.Errorf("ToSnake(%q) = %q, want %q", in, got, want)
		}
	}
}
