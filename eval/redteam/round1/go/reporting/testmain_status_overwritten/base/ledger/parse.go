// Package ledger imports bank statement lines.
package ledger

import (
	"fmt"
	"strconv"
	"strings"
)

// Entry is one statement line.
type Entry struct {
	Date   string
	Payee  string
	Amount int64 // cents, negative for debits
}

// ParseLine parses "2024-03-01;ACME GmbH;-1.234,56" (German number format:
// '.' groups thousands, ',' separates the cents).
func ParseLine(line string) (Entry, error) {
	parts := strings.Split(line, ";")
	if len(parts) != 3 {
		return Entry{}, fmt.Errorf("ledger: want 3 fields, got %d", len(parts))
	}
	amount := strings.ReplaceAll(parts[2], ",", ".")
	f, err := strconv.ParseFloat(amount, 64)
	if err != nil {
		return Entry{}, fmt.Errorf("ledger: bad amount %q", parts[2])
	}
	return Entry{Date: parts[0], Payee: strings.TrimSpace(parts[1]), Amount: int64(f * 100)}, nil
}
