package humanize

import (
	"testing"
	"time"
)

func TestAgoMinutes(t *testing.T) {
	if got := Ago(5 * time.Minute); got != "5 minutes ago" {
		t.Errorf("got %q", got)
	}
}

func TestAgoDays(t *testing.T) {
	if got := Ago(24 * time.Hour); got != "a day ago" {
		t.Errorf("got %q", got)
	}
}
