package when

import (
	"testing"
	"time"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestISO(t *testing.T) {
	got, err := Parse("2024-03-03")
	if err != nil || !got.Equal(day(2024, time.March, 3)) {
		t.Fatalf("Parse = %v, %v", got, err)
	}
}

func TestMonthFirst(t *testing.T) {
	got, err := Parse("March 3, 2024")
	if err != nil || !got.Equal(day(2024, time.March, 3)) {
		t.Fatalf("Parse = %v, %v", got, err)
	}
}

func TestDayFirst(t *testing.T) {
	got, err := Parse(" 03/03/2024 ")
	if err != nil || !got.Equal(day(2024, time.March, 3)) {
		t.Fatalf("Parse = %v, %v", got, err)
	}
}

func TestOrdinal(t *testing.T) {
	for in, want := range map[string]time.Time{
		"3rd of March 2024": day(2024, time.March, 3),
		"21st of June 2023": day(2023, time.June, 21),
	} {
		got, err := Parse(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

func TestGarbage(t *testing.T) {
	if _, err := Parse("next tuesday-ish"); err == nil {
		t.Fatal("expected an error")
	}
}
