package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/grant"
	"github.com/spf13/pflag"
)

// standingGrants are the flags by which `policy eval` and `policy explain`
// apply the project's grants, the ones `rivumi grant add` records and the
// hooks apply on every call.
type standingGrants struct {
	file string
	off  bool
}

func (g *standingGrants) register(fs *pflag.FlagSet) {
	fs.StringVar(&g.file, "grants", "", "grants `FILE` (default: the project's, as 'rivumi grant' keeps them and the hooks apply them)")
	fs.BoolVar(&g.off, "no-grants", false, "grade without the project's grants")
}

// load returns the grants in force for the project of the --workspace (or
// --cwd, or the current directory), and the file they come from. A grants
// file that cannot be read is an error: grading without it would answer
// differently from the hook.
func (g *standingGrants) load(pf *policyFlags) ([]engine.Grant, string, error) {
	if g.off {
		return nil, "", nil
	}
	path := g.file
	if path == "" {
		dir := pf.workspace
		if dir == "" {
			dir = pf.cwd
		}
		if dir == "" {
			var err error
			if dir, err = os.Getwd(); err != nil {
				return nil, "", err
			}
		}
		root, err := grant.ProjectRoot(dir)
		if err != nil {
			return nil, "", err
		}
		if path, err = grant.DefaultPath(root); err != nil {
			return nil, "", err
		}
	}
	gs, err := loadGrants(path)
	if err != nil {
		return nil, "", fmt.Errorf("grants %s: %v (--no-grants grades without them)", path, err)
	}
	return gs, path, nil
}

// noteGrants says which of the project's grants decided part of v: each
// grant whose rules the verdict reports as granted.
func noteGrants(w io.Writer, v engine.Verdict, grants []engine.Grant, file string) {
	var used []string
	for _, r := range v.Reasons {
		if r.Layer != engine.LayerGrant {
			continue
		}
		for _, g := range grants {
			if slices.Contains(g.Rules, r.Rule) && hasPrefix(r.Text, g.Prefix) {
				s := fmt.Sprintf("%s cancelled by the grant %s", r.Rule, quoteWords(g.Prefix))
				if !slices.Contains(used, s) {
					used = append(used, s)
				}
			}
		}
	}
	if len(used) == 0 {
		return
	}
	fmt.Fprintf(w, "a standing grant of this project decided: %s\n  (from %s; 'rivumi grant list' shows them, --no-grants grades without them)\n", strings.Join(used, "; "), file)
}

// hasPrefix reports whether the segment text starts with the words of
// prefix (a display check; the engine matched the argv itself).
func hasPrefix(text string, prefix []string) bool {
	fields := strings.Fields(text)
	if len(fields) < len(prefix) {
		return false
	}
	for i, p := range prefix {
		if fields[i] != p && !strings.HasSuffix(fields[i], "/"+p) {
			return false
		}
	}
	return true
}
