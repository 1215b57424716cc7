package cli

import (
	"slices"
	"strings"

	"github.com/rivumi/rivumi/internal/textdist"
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
			d := textdist.Distance(t, p)
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
