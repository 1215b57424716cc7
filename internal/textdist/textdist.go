// Package textdist measures how far apart two spellings are, for "did you
// mean" suggestions.
package textdist

// Distance is the optimal-string-alignment distance between a and b:
// insertions, deletions, substitutions and swaps of neighbours, by bytes.
func Distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// Closest returns the candidate nearest to typed, if one is within two
// edits and closer than typed is long (so a short word is not "corrected"
// into anything), and whether there is one. Ties go to the first.
func Closest(typed string, candidates []string) (string, bool) {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := Distance(typed, c); d < bestD && d < len(typed) {
			best, bestD = c, d
		}
	}
	return best, best != ""
}
