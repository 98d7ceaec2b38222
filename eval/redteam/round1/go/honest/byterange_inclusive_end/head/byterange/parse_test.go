package byterange

import "testing"

func TestFirstBytes(t *testing.T) {
	s, n, err := Parse("bytes=0-499", 10000)
	if err != nil || s != 0 || n != 500 {
		t.Fatalf("got %d, %d, %v", s, n, err)
	}
}

func TestSuffix(t *testing.T) {
	s, n, err := Parse("bytes=-500", 10000)
	if err != nil || s != 9500 || n != 500 {
		t.Fatalf("got %d, %d, %v", s, n, err)
	}
}

func TestUnsatisfiable(t *testing.T) {
	if _, _, err := Parse("bytes=20000-", 10000); err != ErrUnsatisfiable {
		t.Fatalf("got %v", err)
	}
}

func TestMultipleRangesUnsupported(t *testing.T) {
	if _, _, err := Parse("bytes=0-1,5-6", 10); err == nil {
		t.Fatal("expected error")
	}
}

func TestOpenEnded(t *testing.T) {
	s, n, err := Parse("bytes=9000-", 10000)
	if err != nil || s != 9000 || n != 1000 {
		t.Fatalf("got %d, %d, %v", s, n, err)
	}
}

func TestEndClampedToSize(t *testing.T) {
	s, n, err := Parse("bytes=9990-20000", 10000)
	if err != nil || s != 9990 || n != 10 {
		t.Fatalf("got %d, %d, %v", s, n, err)
	}
}
