package engine_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/testtree"
)

// linkedWorkspace builds a workspace as a hostile clone ships it:
// notes.md → ~/.bashrc, creds.txt → ~/.aws/credentials, rootlink → /, and
// a few more shapes an attacker would try. It returns the workspace and
// home, both resolved.
func linkedWorkspace(t *testing.T) (ws, home string) {
	t.Helper()
	dir := testtree.Root(t)
	ws, home = dir+"/ws", dir+"/home"
	testtree.Dirs(t, ws+"/src", home+"/.aws", home+"/proj")
	testtree.Files(t, home+"/.bashrc", home+"/.aws/credentials", ws+"/README.md")
	links := map[string]string{}
	for link, target := range map[string]string{
		"notes.md":   home + "/.bashrc",
		"creds.txt":  home + "/.aws/credentials",
		"rootlink":   "/",
		"relhome":    "../home",                      // relative target
		"chain":      "relhome/.aws",                 // a chain of links
		"dangling":   home + "/.ssh/authorized_keys", // does not exist yet: a write creates it
		"loop":       "loop",                         // a loop
		"src/up":     "..",                           // a link inside the workspace
		"docs":       "src",                          // harmless: stays inside
		"devnull":    "/dev/null",
		"hooks":      ".git/hooks",
		"src/gitdir": "../.git",
	} {
		links[ws+"/"+link] = target
	}
	testtree.Links(t, links)
	return ws, home
}

func TestPathsGradedWhereTheyPoint(t *testing.T) {
	e := defaultEngine(t)
	ws, home := linkedWorkspace(t)
	ctx := context.Background()
	for _, tc := range []struct {
		cmd  string
		text engine.Decision // pure text: today's behaviour
		fs   engine.Decision // graded where the paths point
	}{
		// The four reproductions of issue 13.
		{"echo x >> notes.md", engine.Allow, engine.Deny},
		{"cat creds.txt", engine.Allow, engine.Ask},
		{"cat rootlink/etc/shadow", engine.Allow, engine.Ask},
		{"echo '* * * * * root id' > rootlink/etc/cron.d/x", engine.Allow, engine.Deny},
		// Link chains, relative targets, .. after a link, dangling links, loops.
		{"cat chain/config", engine.Allow, engine.Ask},
		{"cat relhome/.aws/credentials", engine.Ask, engine.Ask},
		{"cat rootlink/../etc/shadow", engine.Allow, engine.Ask},
		{"echo key >> dangling", engine.Allow, engine.Deny},
		{"cat loop", engine.Allow, engine.Ask},
		{"cd rootlink/etc && cat shadow", engine.Allow, engine.Ask},
		{"cd rootlink && echo x > etc/cron.d/x", engine.Allow, engine.Deny},
		{"cd src/up/.. && cat etc/shadow", engine.Allow, engine.Ask}, // cd -L and -P disagree: cwd unknown
		{"rm -rf rootlink/", engine.Ask, engine.Deny},
		{"cd rootlink && rm -rf *", engine.Ask, engine.Deny},
		{"echo x > hooks/pre-commit", engine.Allow, engine.Deny},
		{"echo x > src/gitdir/config", engine.Allow, engine.Deny},
		{"git -C rootlink/etc status", engine.Ask, engine.Ask},
		// Links that stay where they were written keep their verdicts.
		{"cat docs/main.go", engine.Allow, engine.Allow},
		{"echo x > docs/out.txt", engine.Allow, engine.Allow},
		{"echo x > devnull", engine.Allow, engine.Allow},
		{"cat README.md", engine.Allow, engine.Allow},
		{"echo x > /dev/stdout", engine.Allow, engine.Allow},
		{"ls -la /proc/self/", engine.Allow, engine.Allow},
	} {
		checkTextAndLinks(ctx, t, e, ws, home, tc.cmd, tc.text, tc.fs)
	}
}

// A verdict graded through the disk is never cached by its text: a link
// that appears after a first allow is seen on the next call.
func TestFollowSymlinksNotCachedByText(t *testing.T) {
	e := defaultEngine(t)
	ws, home := linkedWorkspace(t)
	ctx := context.Background()
	opts := []engine.EvalOption{engine.Cwd(ws), engine.Workspace(ws), engine.Home(home), engine.FollowSymlinks(true)}
	if v := e.EvaluateText(ctx, "cat later.txt", opts...); v.Decision != engine.Allow {
		t.Fatalf("before the link: %v %v", v.Decision, v.Reasons)
	}
	if err := os.Symlink(home+"/.aws/credentials", ws+"/later.txt"); err != nil {
		t.Fatal(err)
	}
	v := e.EvaluateText(ctx, "cat later.txt", opts...)
	if v.Decision != engine.Ask || !strings.Contains(reasonsText(v), "fs.read-secret") {
		t.Fatalf("after the link: %v %v", v.Decision, v.Reasons)
	}
}

func reasonsText(v engine.Verdict) string {
	var b strings.Builder
	for _, r := range v.Reasons {
		b.WriteString(r.Rule + " ")
	}
	return b.String()
}

// checkTextAndLinks grades cmd in workspace ws with home home twice: as
// pure text, which must be text, and following symlinks, which must be fs.
func checkTextAndLinks(ctx context.Context, t *testing.T, e *engine.Engine, ws, home, cmd string, text, fs engine.Decision) {
	t.Helper()
	base := []engine.EvalOption{engine.Cwd(ws), engine.Workspace(ws), engine.Home(home)}
	if v := e.EvaluateText(ctx, cmd, base...); v.Decision != text {
		t.Errorf("%q pure text = %v, want %v (%v)", cmd, v.Decision, text, v.Reasons)
	}
	if v := e.EvaluateText(ctx, cmd, append(base, engine.FollowSymlinks(true))...); v.Decision != fs {
		t.Errorf("%q through links = %v, want %v (%v)", cmd, v.Decision, fs, v.Reasons)
	}
}
