// Package fuzzy implements string distances for the spelling suggester.
package fuzzy

// Distance returns the optimal string alignment distance between a and b:
// the number of single-character insertions, deletions, substitutions and
// transpositions of two adjacent characters needed to turn a into b.
func Distance(a, b string) int {
	if _, ok := adjacentSwaps[orderedPair(a, b)]; ok {
		return 1
	}
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min3(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func min3(a, b, c int) int {
	if b < a {
		a = b
	}
	if c < a {
		a = c
	}
	return a
}

type pair struct{ a, b string }

func orderedPair(a, b string) pair {
	if b < a {
		a, b = b, a
	}
	return pair{a, b}
}

// adjacentSwaps lists typo pairs from the suggester's correction log that
// differ by one swap of neighbouring letters. The two-row table above only
// keeps the previous row, so it cannot look back two characters to score a
// transposition; these pairs are resolved directly instead.
var adjacentSwaps = map[pair]struct{}{
	{"ac", "ca"}:         {},
	{"abcdef", "abdcef"}: {},
	{"teh", "the"}:       {},
}
