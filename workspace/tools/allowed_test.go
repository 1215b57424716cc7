package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rivumi/rivumi/workspace/tools"
)

// A write outside allowed_paths — a redirect or an operand a program
// writes — is asked about, never allowed by the grading alone; inside
// allowed_paths the same command stays allowed.
func TestShellWritesOutsideAllowedPathsAsk(t *testing.T) {
	f := newFixture(t, withEngine(t))
	for _, c := range []struct{ cmd, outside, inside string }{
		{"cp", "cp README.md docs/guide.txt", "cp README.md src/copy.txt"},
		{"mv", "mv src/main.go docs/main.go", "mv src/main.go src/moved.go"},
		{"sed -i", "sed -i s/guide/x/ docs/guide.txt", "sed -i s/main/x/ src/main.go"},
		{"tee", "echo x | tee docs/t.txt", "echo x | tee src/t.txt"},
		{"touch", "touch docs/new.txt", "touch src/new.txt"},
		{"rm", "rm docs/guide.txt", "rm src/main.go"},
		{"sort -o", "sort -o docs/s.txt README.md", "sort -o src/s.txt README.md"},
		{"chmod", "chmod +x docs/guide.txt", "chmod +x src/main.go"},
		{"redirect", "echo x > docs/r.txt", "echo x > src/r.txt"},
		{"append", "echo x >> docs/guide.txt", "echo x >> src/main.go"},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			before := f.file(t, "docs/guide.txt")
			var out tools.ShellOutput
			res := f.call(t, tools.ToolShell, tools.ShellArgs{Command: c.outside}, &out)
			if res.OK || !strings.Contains(res.Error, "needs approval") || !strings.Contains(res.Error, "workspace.write_outside_allowed_paths") {
				t.Errorf("%q: %+v (want an ask naming workspace.write_outside_allowed_paths)", c.outside, res)
			}
			if out.Decision != "ask" {
				t.Errorf("%q: decision %q, want ask", c.outside, out.Decision)
			}
			if got := f.file(t, "docs/guide.txt"); got != before {
				t.Errorf("%q wrote docs/guide.txt: %q", c.outside, got)
			}
			res = f.call(t, tools.ToolShell, tools.ShellArgs{Command: c.inside}, &out)
			if strings.Contains(res.Error, "write_outside_allowed_paths") || slicesContains(out.Rules, "workspace.write_outside_allowed_paths") {
				t.Errorf("%q (inside allowed_paths) was asked about: %+v %+v", c.inside, res, out)
			}
		})
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// A glob the workspace shell refuses halts the run: a non-zero status (a
// refusal), and nothing after it runs, `&&` or `;`.
func TestShellRefusedGlobHalts(t *testing.T) {
	f := newFixture(t, withEngine(t), approveAll)
	for _, cmd := range []string{
		"for f in src/*.go; do echo hi; done && echo after > out.txt",
		"for f in src/*.go; do echo hi; done; echo after > out.txt",
		"echo x > src/*.go && echo after > out.txt",
		"echo x > src/*.go ; echo after > out.txt",
		"cat < src/*.go || echo after > out.txt",
	} {
		os.Remove(filepath.Join(f.w.Dir(), "out.txt"))
		var out tools.ShellOutput
		res := f.call(t, tools.ToolShell, tools.ShellArgs{Command: cmd}, &out)
		if res.OK || out.ExitCode == 0 {
			t.Errorf("%q: %+v %+v (want a refusal, non-zero)", cmd, res, out)
		}
		if b, _ := os.ReadFile(filepath.Join(f.w.Dir(), "out.txt")); strings.Contains(string(b), "after") {
			t.Errorf("%q: the command after the refused glob ran", cmd)
		}
	}
}

// An over-long path is a refusal that names no host directory, in every
// tool that takes a path and in a shell redirect.
func TestOverlongPathRefusedCleanly(t *testing.T) {
	f := newFixture(t, withEngine(t), approveAll)
	long := "src/" + strings.Repeat("n", 300) + ".txt"
	deep := "src/" + strings.Repeat("d/", 2000) + "x.txt"
	host := f.w.Dir()
	for _, p := range []string{long, deep} {
		for _, c := range []struct {
			tool string
			args any
		}{
			{tools.ToolReadFile, tools.ReadFileArgs{Path: p}},
			{tools.ToolReplaceText, tools.ReplaceTextArgs{Path: p, Old: "a", New: "b"}},
			{tools.ToolListFiles, tools.ListFilesArgs{Path: p}},
			{tools.ToolShell, tools.ShellArgs{Command: "echo x > " + p}},
		} {
			raw, _ := json.Marshal(c.args)
			type answer struct {
				res tools.Result
				err error
			}
			done := make(chan answer, 1)
			go func() {
				res, err := f.tools.Call(context.Background(), c.tool, raw)
				done <- answer{res, err}
			}()
			var a answer
			select {
			case a = <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("%s blocked", c.tool)
			}
			if a.err != nil {
				t.Errorf("%s %.20s…: an internal error, not a refusal: %v", c.tool, p, a.err)
				continue
			}
			res := a.res
			if res.OK {
				t.Errorf("%s %.20s…: %+v (want a refusal)", c.tool, p, res)
			}
			if strings.Contains(res.Error, host) {
				t.Errorf("%s: the refusal shows the host path: %s", c.tool, res.Error)
			}
		}
	}
}
