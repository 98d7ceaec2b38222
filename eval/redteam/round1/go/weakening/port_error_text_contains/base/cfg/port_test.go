package cfg

import "testing"

func TestPortValid(t *testing.T) {
	if n, err := Port("8080"); err != nil || n != 8080 {
		t.Fatalf("got %d, %v", n, err)
	}
}

func TestPortNotANumber(t *testing.T) {
	_, err := Port("http")
	if err == nil || err.Error() != `cfg: port "http" is not a number` {
		t.Fatalf("got %v", err)
	}
}

func TestPortOutOfRange(t *testing.T) {
	_, err := Port("70000")
	if err == nil || err.Error() != "cfg: port 70000 out of range 1-65535" {
		t.Fatalf("got %v", err)
	}
}
