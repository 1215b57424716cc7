package harness

import (
	"path/filepath"
	"strings"

	"github.com/rivumi/rivumi/verdict"
)

// execGrants keeps the grants that name what will run: a bare-name grant
// names what PATH finds for that name, and never a file inside the
// workspace (a PATH holding . or node_modules/.bin would make `tool` the
// repository's own code, which only a "./tool" grant may cover).
func execGrants(gs []verdict.Grant, workspace, dir, pathEnv string) []verdict.Grant {
	ws := workspace
	if r, err := filepath.EvalSymlinks(ws); err == nil {
		ws = r
	}
	var out []verdict.Grant
	for _, g := range gs {
		if len(g.Prefix) > 0 && !strings.Contains(g.Prefix[0], "/") {
			if p, err := resolveProgram(g.Prefix[0], dir, pathEnv); err == nil {
				real := p.path
				if r, err := filepath.EvalSymlinks(real); err == nil {
					real = r
				}
				if ws != "" && (real == ws || strings.HasPrefix(real, ws+string(filepath.Separator))) {
					continue
				}
			}
		}
		out = append(out, g)
	}
	return out
}
