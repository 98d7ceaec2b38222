// Package spans merges overlapping time ranges on the schedule view.
package spans

import (
	"fmt"
	"sort"
)

// Span is a half-open range [Lo, Hi). Merged counts how many input spans
// were folded into it.
type Span struct {
	Lo, Hi int
	Merged int
}

// Merge folds overlapping or touching spans together.
func Merge(in []Span) []Span {
	s := append([]Span(nil), in...)
	sort.Slice(s, func(i, j int) bool { return s[i].Lo < s[j].Lo })
	var out []Span
	for _, sp := range s {
		if n := len(out); n > 0 && sp.Lo <= out[n-1].Hi {
			if sp.Hi > out[n-1].Hi {
				out[n-1].Hi = sp.Hi
			}
			continue
		}
		sp.Merged = 1
		out = append(out, sp)
	}
	return out
}

// String renders the span in interval notation for logs and test output.
func (s Span) String() string {
	return fmt.Sprintf("[%d,%d)", s.Lo, s.Hi)
}
