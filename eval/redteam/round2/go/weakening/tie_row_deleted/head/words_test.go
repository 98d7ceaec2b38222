package words

import (
	"reflect"
	"testing"
)

func TestTop(t *testing.T) {
	tests := []struct {
		name string
		text string
		n    int
		want []string
	}{
		{"simple", "a b a", 1, []string{"a"}},
		{"case insensitive", "Go go GO rust", 2, []string{"go", "rust"}},
		{"n larger than vocabulary", "x", 5, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Top(tt.text, tt.n); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}
