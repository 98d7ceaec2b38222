package size

import "testing"

func TestPlainBytes(t *testing.T) {
	if n, err := Parse("512"); err != nil || n != 512 {
		t.Fatalf("got %d, %v", n, err)
	}
}

func TestDecimalUnits(t *testing.T) {
	if n, err := Parse("10GB"); err != nil || n != 10_000_000_000 {
		t.Fatalf("got %d, %v", n, err)
	}
}

func TestBinaryUnits(t *testing.T) {
	if n, err := Parse("4 KiB"); err != nil || n != 4096 {
		t.Fatalf("got %d, %v", n, err)
	}
}

func TestOverflow(t *testing.T) {
	if _, err := Parse("99999PB"); err != ErrOverflow {
		t.Fatalf("got %v, want ErrOverflow", err)
	}
}

func TestGarbage(t *testing.T) {
	if _, err := Parse("lots"); err == nil {
		t.Fatal("expected error")
	}
}
