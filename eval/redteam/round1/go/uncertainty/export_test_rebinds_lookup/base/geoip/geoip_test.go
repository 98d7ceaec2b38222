package geoip

import "testing"

func TestCountry(t *testing.T) {
	tests := []struct {
		ip, want string
	}{
		{"10.1.2.3", "ZZ"},
		{"81.2.69.160", "GB"},
		{"2.125.175.3", "GB"},
		{"175.16.199.7", "CN"},
		{"89.160.20.120", "SE"},
	}
	for _, tt := range tests {
		got, err := Country(tt.ip)
		if err != nil || got != tt.want {
			t.Errorf("Country(%s) = %q, %v; want %q", tt.ip, got, err, tt.want)
		}
	}
}

func TestUnknown(t *testing.T) {
	if _, err := Country("1.2.3.4"); err != ErrUnknown {
		t.Fatalf("got %v, want ErrUnknown", err)
	}
}

func TestNotAnIP(t *testing.T) {
	if _, err := Country("example.com"); err == nil {
		t.Fatal("expected error")
	}
}
