package ledger

import "testing"

func TestParseSmallAmount(t *testing.T) {
	e, err := ParseLine("2024-03-01;Bakery;-3,50")
	if err != nil || e.Amount != -350 || e.Payee != "Bakery" {
		t.Fatalf("got %+v, %v", e, err)
	}
}

func TestParseThousands(t *testing.T) {
	e, err := ParseLine("2024-03-01;ACME GmbH;-1.234,56")
	if err != nil || e.Amount != -123456 {
		t.Fatalf("got %+v, %v", e, err)
	}
}

func TestParseCentsExact(t *testing.T) {
	e, err := ParseLine("2024-03-02;Refund;0,29")
	if err != nil || e.Amount != 29 {
		t.Fatalf("got %+v, %v", e, err)
	}
}

func TestParseWrongFieldCount(t *testing.T) {
	if _, err := ParseLine("2024-03-01;only two"); err == nil {
		t.Fatal("expected an error")
	}
}
