package hook

import (
	"bytes"
	"context"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/testtree"
	"github.com/rivumi/rivumi/verdict"
)

// The Claude Code hook, in a workspace whose clone ships links to the
// user's start-up file, credentials and /, does not allow the commands
// that write or read through them (issue 13), and the file tools agree.
func TestHookGradesPathsWhereTheyPoint(t *testing.T) {
	dir := testtree.Root(t)
	ws, home := dir+"/ws", dir+"/home"
	testtree.Dirs(t, ws+"/.git", home+"/.aws")
	testtree.Links(t, map[string]string{ws + "/notes.md": home + "/.bashrc", ws + "/creds.txt": home + "/.aws/credentials", ws + "/rootlink": "/"})
	e, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Agent: ClaudeCode, NewGrader: graderOf(e.Grade), Workspace: ws, Home: home}
	for _, tc := range []struct{ cmd, want string }{
		{"echo x >> notes.md", "deny"},
		{"cat creds.txt", "ask"},
		{"cat rootlink/etc/shadow", "ask"},
		{"echo '* * * * * root id' > rootlink/etc/cron.d/x", "deny"},
		{"cat README.md", "allow"},
	} {
		a := Decide(context.Background(), cfg, bytes.NewReader(SamplePayload(ClaudeCode, tc.cmd, ws)))
		if a.Reply != tc.want {
			t.Errorf("%q: reply %q (%s), want %q", tc.cmd, a.Reply, a.Reason, tc.want)
		}
	}
	p := &PathPolicy{Workspace: ws, Home: home}
	if v := p.Check(OpWrite, "notes.md", ws); v.Decision != verdict.Deny {
		t.Errorf("Write notes.md: %v", v.Decision)
	}
	if v := p.Check(OpRead, "creds.txt", ws); v.Decision != verdict.Ask {
		t.Errorf("Read creds.txt: %v", v.Decision)
	}
}
