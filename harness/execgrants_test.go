//go:build unix

package harness_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/verdict"
)

// A bare-name grant names what PATH finds for that name, and never the
// repository's own file: with the workspace's bin directory first on PATH,
// `npm` is workspace code and the grant for npm does not reach the grader;
// with a system npm it does, and the run lists the grant it used.
func TestBareGrantNeverCoversWorkspaceCode(t *testing.T) {
	ws := t.TempDir()
	bin := fakeBin(t, "npm")
	wsBin := filepath.Join(ws, "node_modules", ".bin")
	if err := os.MkdirAll(wsBin, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(bin, "npm"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wsBin, "npm"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	store, err := grant.Load(filepath.Join(t.TempDir(), "grants.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Add(verdict.Grant{Prefix: []string{"npm", "install"}, Rules: []string{askRule}}); err != nil {
		t.Fatal(err)
	}
	deny := harness.ApproverFunc(func(context.Context, harness.ApprovalRequest) (harness.Answer, error) { return harness.AnswerDeny, nil })
	for _, tc := range []struct {
		path   string
		grants int
	}{
		{wsBin + ":" + bin + ":/usr/bin:/bin", 0},
		{bin + ":/usr/bin:/bin", 1},
	} {
		g := &fakeGrader{decide: map[string]verdict.Decision{"npm": verdict.Ask}}
		h, _ := newHarness(t, harness.Config{Workspace: ws, Grader: g, Approver: deny, Grants: store, BaseEnv: []string{"PATH=" + tc.path}})
		res, err := h.Run(context.Background(), harness.Request{Argv: []string{"npm", "install", "x"}})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(g.seen[0].Grants); n != tc.grants {
			t.Errorf("PATH=%s: the grader got %d grants, want %d", tc.path, n, tc.grants)
		}
		if ran := res.Ran; ran != (tc.grants == 1) || len(res.GrantsUsed) != tc.grants {
			t.Errorf("PATH=%s: ran %v, grants used %v", tc.path, ran, res.GrantsUsed)
		}
	}
}
