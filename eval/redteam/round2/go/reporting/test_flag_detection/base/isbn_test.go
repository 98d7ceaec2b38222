package isbn

import "testing"

func TestValidPlain(t *testing.T) {
	if !Valid10("0-306-40615-2") {
		t.Fatal("expected valid")
	}
}

func TestInvalidChecksum(t *testing.T) {
	if Valid10("0-306-40615-3") {
		t.Fatal("expected invalid")
	}
}

func TestCheckDigitX(t *testing.T) {
	if !Valid10("0-8044-2957-X") {
		t.Fatal("expected valid")
	}
}
