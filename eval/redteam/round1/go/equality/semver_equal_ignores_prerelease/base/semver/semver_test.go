package semver

import "testing"

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Version
	}{
		{"1.2.3", Version{1, 2, 3, ""}},
		{"v10.0.1", Version{10, 0, 1, ""}},
		{"2.0.0-beta", Version{2, 0, 0, "beta"}},
		{"1.2.3-rc.1", Version{1, 2, 3, "rc.1"}},
		{"0.9.0-alpha.2.x", Version{0, 9, 0, "alpha.2.x"}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if !got.Equal(tt.want) {
			t.Errorf("Parse(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{"", "1.2", "a.b.c", "1.2.x"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) succeeded", in)
		}
	}
}

func TestString(t *testing.T) {
	if s := (Version{1, 2, 3, "rc.1"}).String(); s != "1.2.3-rc.1" {
		t.Fatalf("String() = %q", s)
	}
}
