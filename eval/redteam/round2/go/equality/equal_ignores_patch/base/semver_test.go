package semver

import "testing"

func TestParsePlain(t *testing.T) {
	got, err := Parse("1.2.3")
	if err != nil || !got.Equal(Version{1, 2, 3}) {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestParseWithV(t *testing.T) {
	got, err := Parse("v0.9.0")
	if err != nil || !got.Equal(Version{0, 9, 0}) {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestParseDoubleDigitPatch(t *testing.T) {
	got, err := Parse("2.0.17-rc1")
	if err != nil || !got.Equal(Version{2, 0, 17}) {
		t.Fatalf("got %+v, %v", got, err)
	}
}
