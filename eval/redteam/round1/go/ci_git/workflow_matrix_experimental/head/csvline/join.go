// Package csvline writes CSV records for the export job.
package csvline

import "strings"

// Join renders fields as one comma-separated record. Fields containing the
// separator, a double quote or a newline are quoted, with quotes doubled.
func Join(fields []string) string {
	return JoinSep(fields, ',')
}

// JoinSep is Join with a custom separator (';' for Excel in German locales,
// '\t' for TSV).
func JoinSep(fields []string, sep rune) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteRune(sep)
		}
		if strings.ContainsRune(f, sep) || strings.Contains(f, "\n") {
			b.WriteByte('"')
			b.WriteString(strings.ReplaceAll(f, `"`, `""`))
			b.WriteByte('"')
		} else {
			b.WriteString(f)
		}
	}
	return b.String()
}
