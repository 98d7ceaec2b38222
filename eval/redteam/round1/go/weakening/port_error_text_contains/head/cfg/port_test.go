package cfg

import (
	"strings"
	"testing"
)

func TestPortValid(t *testing.T) {
	if n, err := Port("8080"); err != nil || n != 8080 {
		t.Fatalf("got %d, %v", n, err)
	}
}

func TestPortNotANumber(t *testing.T) {
	_, err := Port("http")
	if err == nil || !strings.Contains(err.Error(), "not a number") {
		t.Fatalf("got %v", err)
	}
}

func TestPortOutOfRange(t *testing.T) {
	_, err := Port("70000")
	if err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("got %v", err)
	}
}
