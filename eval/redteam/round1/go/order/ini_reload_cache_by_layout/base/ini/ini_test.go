package ini

import (
	"reflect"
	"testing"
)

var want = Config{
	"server": {"host": "localhost", "port": "8080"},
	"log":    {"level": "info"},
}

func TestParseBasic(t *testing.T) {
	got, err := Parse("[server]\nhost = localhost\nport = 8080\n\n[log]\nlevel = info\n")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
}

func TestParseComments(t *testing.T) {
	src := "; generated\n[server]\nhost = localhost\nport = 8080 ; default port\n# logging\n[log]\nlevel = info # or debug\n"
	got, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
}

func TestMissingEquals(t *testing.T) {
	if _, err := Parse("[a]\nbroken line\n"); err == nil {
		t.Fatal("expected an error")
	}
}
