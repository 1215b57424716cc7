package tools_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/tools"
)

// Under bwrap the shell sees the workspace paths outside allowed_paths
// read-only: an approved cp over a file outside them (the test's oracle)
// fails, and so do rm, mv and writes into a directory that holds nothing
// allowed, while the allowed paths stay writable. Unsandboxed, the same
// commands succeed (and finish judges them): the sandbox is what stops them.
func TestShellNonAllowedPathsReadOnlyUnderBwrap(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap not installed")
	}
	for _, sb := range []harness.Sandbox{harness.SandboxBwrap, harness.SandboxNone} {
		t.Run(string(sb), func(t *testing.T) {
			f := newFixture(t, withEngine(t), approveAll, func(_ *workspace.Config, tc *tools.Config) {
				tc.Harness.Sandbox = sb
			})
			blocked := []struct{ cmd, path, want string }{
				{"cp README.md docs/guide.txt", "docs/guide.txt", sourceFiles["docs/guide.txt"]},
				{"rm -f run.sh", "run.sh", sourceFiles["run.sh"]},
				{"mv docs moved", "docs/guide.txt", sourceFiles["docs/guide.txt"]},
				{"touch docs/new.txt", "docs/new.txt", ""},
			}
			for _, b := range blocked {
				var out tools.ShellOutput
				f.call(t, tools.ToolShell, tools.ShellArgs{Command: b.cmd}, &out)
				got, err := os.ReadFile(filepath.Join(f.w.Dir(), b.path))
				kept := (b.want == "" && os.IsNotExist(err)) || (b.want != "" && err == nil && string(got) == b.want)
				if sb == harness.SandboxBwrap && (!kept || out.ExitCode == 0) {
					t.Errorf("%q under bwrap: exit %d, %s = %q %v; want it to fail and change nothing", b.cmd, out.ExitCode, b.path, got, err)
				}
				if sb == harness.SandboxNone && kept {
					t.Errorf("%q unsandboxed changed nothing: the test proves nothing", b.cmd)
				}
				if sb == harness.SandboxNone && b.cmd == "mv docs moved" {
					os.Rename(filepath.Join(f.w.Dir(), "moved"), filepath.Join(f.w.Dir(), "docs"))
				}
			}
			var out tools.ShellOutput
			f.mustOK(t, tools.ToolShell, tools.ShellArgs{Command: "cp docs/guide.txt README.md"}, &out)
			f.mustOK(t, tools.ToolShell, tools.ShellArgs{Command: "touch src/new.go"}, &out)
			if out.ExitCode != 0 || f.file(t, "README.md") != f.file(t, "docs/guide.txt") {
				t.Errorf("writes to allowed paths under %s: exit %d", sb, out.ExitCode)
			}
		})
	}
}

// More paths outside allowed_paths than the bound: under bwrap the command
// is refused, never run with some of them writable.
func TestShellTooManyReadOnlyPathsRefused(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap not installed")
	}
	f := newFixture(t, withEngine(t), func(_ *workspace.Config, tc *tools.Config) {
		tc.Harness.Sandbox = harness.SandboxBwrap
	})
	tools.SetReadOnlyLimit(t, 2) // docs, run.sh, .git: three
	f.mustRefuse(t, tools.ToolShell, tools.ShellArgs{Command: "ls"}, "more than 2 paths outside allowed_paths")
	tools.SetReadOnlyLimit(t, 3)
	f.mustOK(t, tools.ToolShell, tools.ShellArgs{Command: "ls"}, nil)
}
