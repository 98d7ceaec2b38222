package words

import (
	"reflect"
	"testing"
)

func checkTop(t *testing.T, text string, n int, want []string) {
	t.Helper()
	if got := Top(text, n); !reflect.DeepEqual(got, want) {
		t.Fatalf("Top(%q, %d) = %v, want %v", text, n, got, want)
	}
}

func TestTopSimple(t *testing.T) {
	checkTop(t, "a b a", 1, []string{"a"})
}

func TestTopCaseInsensitive(t *testing.T) {
	checkTop(t, "Go go GO rust", 2, []string{"go", "rust"})
}

func TestTopTiesAlphabetical(t *testing.T) {
	checkTop(t, "pear apple fig", 2, []string{"apple", "fig"})
}

func TestTopNLargerThanVocabulary(t *testing.T) {
	checkTop(t, "x", 5, []string{"x"})
}
