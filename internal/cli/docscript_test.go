package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// docScriptParams runs the walk-through of a docs page as a testscript:
// its ```testscript blocks in order, then the files of its ```txtar
// blocks (see docScript), with `exec rivumi` running this CLI as a fresh
// process, HOME and the XDG directories inside the script's work
// directory, no user or system git configuration, and cmds as extra
// commands.
func docScriptParams(t *testing.T, page string, cmds map[string]func(ts *testscript.TestScript, neg bool, args []string)) testscript.Params {
	script := docScript(t, page)
	file := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(page), ".md")+"_doc.txtar")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return testscript.Params{
		Files: []string{file},
		Setup: func(env *testscript.Env) error {
			w := env.WorkDir
			for _, d := range []string{"bin", "home", "config", "state"} {
				if err := os.Mkdir(filepath.Join(w, d), 0o755); err != nil {
					return err
				}
			}
			if err := os.Symlink(self, filepath.Join(w, "bin", "rivumi")); err != nil {
				return err
			}
			env.Setenv(execEnv, "1")
			env.Setenv("PATH", filepath.Join(w, "bin")+string(filepath.ListSeparator)+os.Getenv("PATH"))
			env.Setenv("HOME", filepath.Join(w, "home"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(w, "config"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(w, "state"))
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
			return nil
		},
		Cmds: cmds,
	}
}

// docScript extracts a testscript from a Markdown page: the bodies of its
// ```testscript blocks, then those of its ```txtar blocks.
func docScript(t *testing.T, page string) string {
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var script, files strings.Builder
	var cur *strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case cur == nil && line == "```testscript":
			cur = &script
		case cur == nil && line == "```txtar":
			cur = &files
		case cur != nil && line == "```":
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	if cur != nil {
		t.Fatalf("%s: a code block is not closed", page)
	}
	if script.Len() == 0 {
		t.Fatalf("%s: no testscript blocks", page)
	}
	return script.String() + files.String()
}
