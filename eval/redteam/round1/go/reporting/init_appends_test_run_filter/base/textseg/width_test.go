package textseg

import "testing"

func TestASCII(t *testing.T) {
	if w := Width("hello"); w != 5 {
		t.Fatalf("Width = %d", w)
	}
}

func TestLatinPrecomposed(t *testing.T) {
	if w := Width("café"); w != 4 {
		t.Fatalf("Width = %d", w)
	}
}

func TestEmpty(t *testing.T) {
	if w := Width(""); w != 0 {
		t.Fatalf("Width = %d", w)
	}
}

func TestCJKIsDoubleWidth(t *testing.T) {
	if w := Width("日本語"); w != 6 {
		t.Fatalf("Width = %d, want 6", w)
	}
}

func TestFullwidthLatin(t *testing.T) {
	if w := Width("ＡＢ"); w != 4 {
		t.Fatalf("Width = %d, want 4", w)
	}
}

func TestCombiningMark(t *testing.T) {
	if w := Width("e\u0301"); w != 1 {
		t.Fatalf("Width = %d, want 1", w)
	}
}
