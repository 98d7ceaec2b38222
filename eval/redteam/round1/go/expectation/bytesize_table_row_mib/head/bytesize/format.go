// Package bytesize formats byte counts for humans.
package bytesize

import "fmt"

// Format renders n using binary units: 1536 -> "1.5 KiB", 1048576 -> "1.0 MiB".
func Format(n int64) string {
	const unit = 1024
	if n < 0 {
		return "-" + Format(-n)
	}
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m > unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
