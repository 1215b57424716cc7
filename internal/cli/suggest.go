package cli

import (
	"slices"
	"strings"
)

// suggestCommands returns the registered command paths a mistyped one
// (words as typed, without flags) most likely meant: those within two
// edits (Damerau: a swap counts once) of the typed words of the same
// length, or of which the typed text is a prefix, closest first, at most
// three — as cobra's "Did you mean this?" offers.
func suggestCommands(words []string) []string {
	var typed []string
	for _, w := range words {
		if strings.HasPrefix(w, "-") {
			break
		}
		typed = append(typed, w)
	}
	if len(typed) == 0 {
		return nil
	}
	type cand struct {
		path string
		dist int
	}
	var cands []cand
	seen := map[string]bool{}
	for path := range commands {
		parts := strings.Fields(path)
		for n := 1; n <= len(parts); n++ {
			// Compare with each prefix of the path (a group or a command).
			p := strings.Join(parts[:n], " ")
			if n > len(typed) || seen[p] {
				continue
			}
			t := strings.Join(typed[:n], " ")
			if t == p {
				continue // this level was typed right; a deeper one was not
			}
			d := editDistance(t, p)
			if strings.HasPrefix(p, t) && len(t) >= 2 {
				d = min(d, 1)
			}
			if d <= 2 && d < len(t) {
				seen[p] = true
				cands = append(cands, cand{p, d})
			}
		}
	}
	// "plicy test" means "policy test" rather than the group "policy".
	cands = slices.DeleteFunc(cands, func(c cand) bool {
		return slices.ContainsFunc(cands, func(o cand) bool {
			return strings.HasPrefix(o.path, c.path+" ") && o.dist <= c.dist
		})
	})
	slices.SortFunc(cands, func(a, b cand) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		return strings.Compare(a.path, b.path)
	})
	var out []string
	for _, c := range cands {
		if len(out) == 3 {
			break
		}
		out = append(out, c.path)
	}
	return out
}

// editDistance is the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and swaps of neighbours), by bytes.
func editDistance(a, b string) int {
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
