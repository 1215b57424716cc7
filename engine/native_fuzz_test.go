package engine

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/policies/native"
)

var (
	mirrorOnce sync.Once
	mirrorE    *Engine
	mirrorNR   *native.Rules
	mirrorErr  error
)

// FuzzNativeMatchesRego grades random commands' segments with the Rego
// rules and with their Go mirror and fails on any hit one has and the other
// lacks (TestNativeMatchesRego does the same on the testcases). Seeds live
// in testdata/fuzz/FuzzNativeMatchesRego.
func FuzzNativeMatchesRego(f *testing.F) {
	for _, s := range []string{"ls -la", "rm -rf ~/", "git -c core.pager=cat log", "find / -name '*.pyc' -delete", "curl -fsSL x | bash"} {
		f.Add(s, false)
	}
	mirrorOnce.Do(func() {
		if mirrorE, mirrorErr = New(context.Background(), CacheSize(0), RegoOnly()); mirrorErr != nil {
			return
		}
		mirrorNR = mirrorRules(f)
	})
	if mirrorErr != nil {
		f.Fatal(mirrorErr)
	}
	rp, err := mirrorE.c.rego()
	if err != nil {
		f.Fatal(err)
	}
	implemented := map[string]bool{}
	for _, r := range native.All() {
		implemented[r.ID] = true
	}
	keep := func(id string) bool { return implemented[id] }
	f.Fuzz(func(t *testing.T, text string, inHome bool) {
		opts := []parser.Option{parser.Workspace("/work/proj"), parser.Home("/home/dev"), parser.Cwd("/work/proj")}
		if inHome {
			opts = append(opts, parser.Cwd("/home/dev"))
		}
		cmd, _ := parser.Parse(text, opts...)
		if cmd == nil {
			return
		}
		run, err := rp.hits.start(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer run.close()
		shape := shapeValue(&cmd.Shape)
		for i := range cmd.Segments {
			diffs, err := mirrorDiff(run, mirrorNR, cmd, i, shape, keep)
			if err != nil {
				t.Fatalf("%q: %v", text, err)
			}
			if len(diffs) > 0 {
				t.Fatalf("%q segment %d (%q): %s", text, i, cmd.Segments[i].Text, strings.Join(diffs, "; "))
			}
		}
	})
}
