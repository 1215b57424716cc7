package engine_test

import (
	"context"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/testtree"
)

// The edits issue 14 allows in the workspace (sed -i, rm, chmod) and the
// reads it allows (public keys) must not become allowed through a
// workspace file that is a link out of it; reads of home contents ask
// through links too. The workspace sits in home, as agents run it.
func TestFrictionThroughLinks(t *testing.T) {
	dir := testtree.Root(t)
	home := dir + "/home"
	ws := home + "/proj"
	testtree.Dirs(t, ws+"/src", home+"/.ssh", home+"/.claude/projects")
	testtree.Files(t, home+"/.ssh/id_rsa", home+"/.ssh/id_rsa.pub", home+"/.claude/projects/t.jsonl",
		home+"/notes.txt", ws+"/a.py", ws+"/run.sh")
	testtree.Links(t, map[string]string{
		ws + "/key.py":             home + "/.ssh/id_rsa",
		ws + "/run2.sh":            home + "/.ssh/id_rsa",
		ws + "/transcript.jsonl":   home + "/.claude/projects/t.jsonl",
		ws + "/notes.txt":          "../notes.txt",
		ws + "/homelink":           "..",
		home + "/.ssh/fake.pub":    home + "/.ssh/id_rsa", // a "public key" that is the private one
		ws + "/src/inside.py":      "../a.py",
		home + "/.ssh/known_hosts": home + "/.ssh/id_rsa",
	})
	e := defaultEngine(t)
	ctx := context.Background()
	for _, tc := range []struct {
		cmd      string
		text, fs engine.Decision
	}{
		// Edits of a workspace name that points at a key: the key is written.
		{"sed -i 's/a/b/' key.py", engine.Allow, engine.Deny},
		{"rm key.py", engine.Allow, engine.Deny},
		{"chmod +x run2.sh", engine.Allow, engine.Deny},
		{"rm homelink/notes.txt", engine.Allow, engine.Ask},
		{"sed -i 's/a/b/' homelink/notes.txt", engine.Allow, engine.Ask},
		// Reads through links into home ask, as the paths they name would.
		{"cat transcript.jsonl", engine.Allow, engine.Ask},
		{"cat notes.txt", engine.Allow, engine.Ask},
		{"cat homelink/.claude/projects/t.jsonl", engine.Allow, engine.Ask},
		{"cat key.py", engine.Allow, engine.Ask},
		// A name that looks public but is a link is not public.
		{"cat ~/.ssh/fake.pub", engine.Allow, engine.Ask},
		{"cat ~/.ssh/known_hosts", engine.Allow, engine.Ask},
		{"cat ~/.ssh/id_rsa.pub", engine.Allow, engine.Allow},
		// Links that stay in the workspace keep their verdicts.
		{"sed -i 's/a/b/' src/inside.py", engine.Allow, engine.Allow},
		{"rm src/inside.py", engine.Allow, engine.Allow},
		{"chmod +x run.sh", engine.Allow, engine.Allow},
		{"cat src/inside.py", engine.Allow, engine.Allow},
		{"ls -la homelink/.claude", engine.Allow, engine.Allow},
	} {
		checkTextAndLinks(ctx, t, e, ws, home, tc.cmd, tc.text, tc.fs)
	}
}
