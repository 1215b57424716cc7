package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/rivumi/rivumi/engine"
)

// Grants match what will run (issue 13): "always" for ./tool covers that
// file of that workspace and no other tool; an absolute-path grant covers
// that path; a bare name covers the name (and the name in a system bin
// directory), never a path elsewhere. The verdict names the grants used.
func TestGrantsMatchWhatRuns(t *testing.T) {
	e := defaultEngine(t)
	ctx := context.Background()
	local := engine.Grant{Prefix: []string{"./tool"}, Rules: []string{"exec.local-program"}}
	abs := engine.Grant{Prefix: []string{"/opt/x/tool"}, Rules: []string{"exec.local-program"}}
	bare := engine.Grant{Prefix: []string{"npm", "install"}, Rules: []string{"packages.install"}}
	for _, tc := range []struct {
		cmd, cwd, ws string
		g            engine.Grant
		want         engine.Decision
	}{
		{"./tool run", "/w", "/w", local, engine.Allow},
		{"/w/tool run", "/w", "/w", local, engine.Ask}, // written absolute: matched as /w/tool
		{"../tool run", "/w/sub", "/w", local, engine.Allow},
		{"./tool run", "/w/sub", "/w", local, engine.Ask}, // /w/sub/tool is another file
		{"./tool run", "/other", "/other", engine.Grant{Prefix: []string{"./tool"}, Rules: local.Rules}, engine.Allow},
		{"/home/me/bin/tool run", "/w", "/w", local, engine.Ask},
		{"/opt/y/tool run", "/w", "/w", abs, engine.Ask},
		{"/w/tool run", "/w", "/w", engine.Grant{Prefix: []string{"/w/tool"}, Rules: local.Rules}, engine.Allow},
		{"/opt/x/tool run", "/w", "/w", abs, engine.Allow},
		{"/opt/x/../x/tool run", "/w", "/w", abs, engine.Allow},
		{"cd /opt/x && ./tool run", "/w", "/w", abs, engine.Allow},
		{"npm install x", "/w", "/w", bare, engine.Allow},
		{"/usr/bin/npm install x", "/w", "/w", bare, engine.Allow},
		{"./npm install x", "/w", "/w", bare, engine.Ask},
		{"/home/me/bin/npm install x", "/w", "/w", bare, engine.Ask},
	} {
		v := e.EvaluateText(ctx, tc.cmd, engine.Cwd(tc.cwd), engine.Workspace(tc.ws), engine.Grants([]engine.Grant{tc.g}))
		if v.Decision != tc.want {
			t.Errorf("%q in %s with grant %q: %v, want %v (%v)", tc.cmd, tc.cwd, tc.g.Prefix, v.Decision, tc.want, v.Reasons)
			continue
		}
		used := slices.ContainsFunc(v.Grants, func(g engine.Grant) bool { return slices.Equal(g.Prefix, tc.g.Prefix) })
		if used != (tc.want == engine.Allow) {
			t.Errorf("%q: verdict grants %v", tc.cmd, v.Grants)
		}
	}
	// The prefix an "always" answer records is the program as it runs.
	for _, tc := range []struct{ cmd, cwd, want string }{
		{"./tool run", "/w", "./tool"},
		{"./tool run", "/w/sub", "./sub/tool"},
		{"/opt/x/tool run", "/w", "/opt/x/tool"},
		{"/usr/bin/npm install", "/w", "npm"},
	} {
		v := e.EvaluateText(ctx, tc.cmd, engine.Cwd(tc.cwd), engine.Workspace("/w"))
		if len(v.Reasons) == 0 || len(v.Reasons[0].Prefix) == 0 || v.Reasons[0].Prefix[0] != tc.want {
			t.Errorf("%q in %s: prefix %v, want %s", tc.cmd, tc.cwd, v.Reasons, tc.want)
		}
	}
}
