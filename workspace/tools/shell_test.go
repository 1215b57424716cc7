package tools_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/tools"
)

func readFile(p string) ([]byte, error) { return os.ReadFile(p) }

func withEngine(t *testing.T) option {
	return func(_ *workspace.Config, tc *tools.Config) { tc.Engine = testEngine(t) }
}

// approveAll answers every ask "once", so that the tests reach the
// interpreter's own gates with commands the policy alone would stop.
func approveAll(_ *workspace.Config, tc *tools.Config) {
	tc.Approver = harness.ApproverFunc(func(context.Context, harness.ApprovalRequest) (harness.Answer, error) {
		return harness.AnswerOnce, nil
	})
}

func TestShellRunsGradedCommands(t *testing.T) {
	f := newFixture(t, withEngine(t))
	var out tools.ShellOutput
	f.mustOK(t, tools.ToolShell, tools.ShellArgs{Command: "echo hi && cd src && ls | wc -l && timeout 5 cat main.go > ../out.txt"}, &out)
	if out.Decision != "allow" || out.ExitCode != 0 || strings.TrimSpace(strings.ReplaceAll(out.Stdout, "hi\n", "")) != "2" {
		t.Errorf("shell = %+v", out)
	}
	if len(out.Commands) != 3 || out.Commands[0].Argv[0] != "ls" || out.Commands[0].Dir != "src" || out.Commands[2].Argv[0] != "timeout" {
		t.Errorf("commands = %+v", out.Commands)
	}
	if f.file(t, "out.txt") != sourceFiles["src/main.go"] {
		t.Error("the redirect did not write out.txt")
	}
	// A failing command's exit status comes back, not a refusal.
	f.mustOK(t, tools.ToolShell, tools.ShellArgs{Command: "ls no-such-file"}, &out)
	if out.ExitCode != 2 || !strings.Contains(out.Stderr, "no-such-file") {
		t.Errorf("failing command = %+v", out)
	}
}

func TestShellRefusals(t *testing.T) {
	f := newFixture(t, withEngine(t))
	// The policy decides first: deny, and ask without an approver.
	f.mustRefuse(t, tools.ToolShell, tools.ShellArgs{Command: "rm -rf /"}, "denied by policy: floor.")
	f.mustRefuse(t, tools.ToolShell, tools.ShellArgs{Command: "make"}, "needs approval")
	// Allowed by the policy, but not what runs: the interpreter's gate.
	var out tools.ShellOutput
	// (A loop of up to 8 static items is graded once per item; a longer one
	// by one placeholder, which is not what runs.)
	res := f.call(t, tools.ToolShell, tools.ShellArgs{Command: "for f in a b c d e f g h i; do echo $f; done"}, &out)
	if res.OK || !strings.Contains(res.Error, "`echo a` (in .) is not a command that was graded") || out.Stdout != "" {
		t.Errorf("loop: %+v, %+v", res, out)
	}
	f.mustOK(t, tools.ToolShell, tools.ShellArgs{Command: "for f in a b; do echo $f; done"}, &out)
	if out.Stdout != "a\nb\n" {
		t.Errorf("short loop: %+v", out)
	}
	f.mustRefuse(t, tools.ToolShell, tools.ShellArgs{Command: "echo $(ls)"}, "is not a command that was graded")
	f.mustRefuse(t, tools.ToolShell, tools.ShellArgs{Command: "cat README.md > docs/x.txt"}, "workspace.write_outside_allowed_paths")
	f.mustRefuse(t, tools.ToolShell, tools.ShellArgs{Command: "ls", Dir: "../"}, `".."`)
	if _, err := os.Stat(f.w.Dir() + "/docs/x.txt"); err == nil {
		t.Error("a refused redirect created its file")
	}
}

func TestShellApprovedStillGated(t *testing.T) {
	f := newFixture(t, withEngine(t), approveAll)
	tests := []struct{ cmd, want string }{
		{`eval "ls"`, "builtin eval is not run"},
		{`f() { ls; }; f`, "function f"},
		{`echo hi > /tmp/rivumi-shell-test`, "redirect: "},
		{`X=1 ls`, "is not a command that was graded"},
		{`. ./run.sh`, "builtin . is not run"},
		{`exec ls`, "builtin exec is not run"},
		{`set -x; ls`, "builtin set is not run"},
		{`set -o vi; ls`, "builtin set is not run"},
		{`set; ls`, "builtin set is not run"},
		{`sleep 5 & echo started`, "background jobs"},
		{`F=out.txt; [ -e nothere ] || F=other.txt; echo hi > $F`, "redirect: other.txt is not a target that was graded"},
		{`ls src/*.go`, "directory reads (globs) are not run"},
		{`cat < /etc/hostname`, "redirect: path \"/etc/hostname\": outside the workspace"},
	}
	for _, tt := range tests {
		f.mustRefuse(t, tools.ToolShell, tools.ShellArgs{Command: tt.cmd}, tt.want)
	}
	if _, err := os.Stat("/tmp/rivumi-shell-test"); err == nil {
		os.Remove("/tmp/rivumi-shell-test")
		t.Error("a redirect wrote outside the workspace")
	}
	// Approved and equal to its segment: runs, and the event records the answer.
	var out tools.ShellOutput
	f.mustOK(t, tools.ToolShell, tools.ShellArgs{Command: "set -euo pipefail; set +e; ls | wc -l"}, &out)
	f.mustOK(t, tools.ToolShell, tools.ShellArgs{Command: "env X=1 true"}, &out)
	evs, _ := f.w.Bundle().Events()
	if last := evs[len(evs)-1]; last.Decision != "ask" || last.Approval != "once" || !last.OK {
		t.Errorf("approved event = %+v", last)
	}
}

func TestShellWithoutEngine(t *testing.T) {
	f := newFixture(t)
	f.mustRefuse(t, tools.ToolShell, tools.ShellArgs{Command: "ls"}, "no policy engine")
}

// Under a sandbox the source stays read-only even for a command that was
// approved: the second wall. (CI installs bwrap; elsewhere the test skips.)
func TestShellSandboxKeepsSourceReadOnly(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap not installed")
	}
	f := newFixture(t, withEngine(t), approveAll, func(_ *workspace.Config, tc *tools.Config) {
		tc.Harness.Sandbox = harness.SandboxBwrap
	})
	target := filepath.Join(f.src, "planted")
	var out tools.ShellOutput
	res := f.call(t, tools.ToolShell, tools.ShellArgs{Command: "touch " + target}, &out)
	if _, err := os.Stat(target); err == nil {
		t.Fatalf("an approved command wrote into the source under bwrap: %+v", res)
	}
	if !res.OK || out.ExitCode <= 0 || len(out.Commands) != 1 {
		t.Errorf("touch outside the workspace under bwrap: %+v, %+v; want it to run and fail", res, out)
	}
	// Inside the workspace it works.
	f.mustOK(t, tools.ToolShell, tools.ShellArgs{Command: "touch src/new.txt"}, &out)
	if out.ExitCode != 0 {
		t.Errorf("touch inside the workspace: %+v", out)
	}
}

// "always" records the offered grants in the store; the next call of the
// same command is allowed by the grant without asking.
func TestShellAlwaysRecordsGrant(t *testing.T) {
	store, err := grant.Load(filepath.Join(t.TempDir(), "grants.json"))
	if err != nil {
		t.Fatal(err)
	}
	var asked []harness.ApprovalRequest
	f := newFixture(t, withEngine(t), func(_ *workspace.Config, tc *tools.Config) {
		tc.Grants = store
		tc.Approver = harness.ApproverFunc(func(_ context.Context, req harness.ApprovalRequest) (harness.Answer, error) {
			asked = append(asked, req)
			return harness.AnswerAlways, nil
		})
	})
	var out tools.ShellOutput
	f.mustOK(t, tools.ToolShell, tools.ShellArgs{Command: "rm -rf out.txt"}, &out)
	if len(asked) != 1 || len(asked[0].Grants) != 1 || asked[0].Grants[0].Prefix[0] != "rm" {
		t.Fatalf("asked %+v, want one ask offering a grant for rm", asked)
	}
	if gs := store.List(); len(gs) != 1 || gs[0].Prefix[0] != "rm" {
		t.Fatalf("store = %+v, want the rm grant", gs)
	}
	f.mustOK(t, tools.ToolShell, tools.ShellArgs{Command: "rm -rf out.txt"}, &out)
	if len(asked) != 1 || out.Decision != "allow" {
		t.Errorf("second call: asked %d times, decision %s; want the grant to allow it", len(asked), out.Decision)
	}
	evs, _ := f.w.Bundle().Events()
	if evs[0].Approval != "always" {
		t.Errorf("event approval = %q, want always", evs[0].Approval)
	}
}

// Without a grant store nothing is offered and "always" is recorded as
// "once".
func TestShellAlwaysWithoutStoreIsOnce(t *testing.T) {
	f := newFixture(t, withEngine(t), func(_ *workspace.Config, tc *tools.Config) {
		tc.Approver = harness.ApproverFunc(func(_ context.Context, req harness.ApprovalRequest) (harness.Answer, error) {
			if len(req.Grants) != 0 {
				t.Errorf("grants offered without a store: %+v", req.Grants)
			}
			return harness.AnswerAlways, nil
		})
	})
	var out tools.ShellOutput
	f.mustOK(t, tools.ToolShell, tools.ShellArgs{Command: "rm -rf out.txt"}, &out)
	evs, _ := f.w.Bundle().Events()
	if evs[0].Approval != "once" {
		t.Errorf("event approval = %q, want once", evs[0].Approval)
	}
}
