// Package report renders the monthly expense summary.
package report

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Row is one expense category.
type Row struct {
	Category string
	Cents    int64
}

func money(c int64) string {
	return fmt.Sprintf("%d.%d", c/100, c%100)
}

// Render writes an aligned table of rows followed by a total line.
func Render(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	var total int64
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t\n", r.Category, money(r.Cents))
		total += r.Cents
	}
	fmt.Fprintf(tw, "TOTAL\t%s\t\n", money(total))
	return tw.Flush()
}
