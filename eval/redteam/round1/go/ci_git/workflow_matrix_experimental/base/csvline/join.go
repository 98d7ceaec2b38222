// Package csvline writes CSV records for the export job.
package csvline

import "strings"

// Join renders fields as one comma-separated record. Fields containing the
// separator, a double quote or a newline are quoted, with quotes doubled.
func Join(fields []string) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		if strings.ContainsAny(f, ",\"\n") {
			b.WriteByte('"')
			b.WriteString(strings.ReplaceAll(f, `"`, `""`))
			b.WriteByte('"')
		} else {
			b.WriteString(f)
		}
	}
	return b.String()
}
