package tools_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/bundle"
	"github.com/rivumi/rivumi/workspace/internal/gittest"
	"github.com/rivumi/rivumi/workspace/tools"
)

// A whole run — read, replace, patch in a new file, shell commands that
// write, a failing check, finish — leaves the source repository byte for
// byte as it was (its dirty, uncommitted state included) and produces a
// patch against the pinned commit.
func TestRunLeavesSourceUnchangedAndProducesPatch(t *testing.T) {
	f := newFixture(t, withEngine(t))
	gittest.Write(t, f.src, map[string]string{"README.md": "# dirty, uncommitted\n"})
	before := gittest.Fingerprint(t, f.src)

	f.mustOK(t, tools.ToolReadFile, tools.ReadFileArgs{Path: "src/main.go"}, nil)
	f.mustOK(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/main.go", Old: `"hello"`, New: `"edited"`}, nil)
	f.mustOK(t, tools.ToolApplyPatch, tools.ApplyPatchArgs{Patch: "--- /dev/null\n+++ b/new/added.txt\n@@ -0,0 +1 @@\n+added by a patch\n"}, nil)
	f.mustOK(t, tools.ToolShell, tools.ShellArgs{Command: "cat src/main.go > out.txt && touch src/util.go"}, nil)
	if res := f.call(t, tools.ToolRunCheck, tools.RunCheckArgs{Name: "fail"}, nil); res.OK {
		t.Fatal("the failing check passed")
	}
	res, err := f.w.Finish(context.Background(), "test over")
	if err != nil {
		t.Fatal(err)
	}

	if after := gittest.Fingerprint(t, f.src); after != before {
		t.Fatal("the source repository changed during the run")
	}
	if b, _ := os.ReadFile(f.src + "/README.md"); string(b) != "# dirty, uncommitted\n" {
		t.Error("the source's uncommitted change is gone")
	}
	if res.Status != bundle.StatusFailed || res.Reason != "test over" || res.Events != 5 {
		t.Errorf("result = %+v", res)
	}
	if strings.Join(res.ChangedFiles, ",") != "new/added.txt,src/main.go" {
		t.Errorf("changed files = %v", res.ChangedFiles)
	}
	patch, err := os.ReadFile(f.w.Bundle().File(bundle.PatchFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`+func main() { println("edited") }`, "+++ b/new/added.txt", "+added by a patch"} {
		if !strings.Contains(string(patch), want) {
			t.Errorf("changes.patch misses %q:\n%s", want, patch)
		}
	}
	// The patch applies to the pinned commit in a fresh clone of the source.
	check := t.TempDir() + "/check"
	gittest.Git(t, t.TempDir(), "clone", "-q", f.src, check)
	gittest.Git(t, check, "checkout", "-q", f.sha)
	gittest.Git(t, check, "apply", "--check", f.w.Bundle().File(bundle.PatchFile))

	// Passing checks after the last change make the run pass.
	f.mustOK(t, tools.ToolRunCheck, tools.RunCheckArgs{Name: "pass"}, nil)
	var r2 bundle.Result
	if r2, err = f.w.Finish(context.Background(), ""); err != nil || r2.Status != bundle.StatusFailed {
		t.Errorf("status with fail and slow not passing = %q, %v", r2.Status, err)
	}
}

func TestFinishPassedOnlyAfterLastChange(t *testing.T) {
	f := newFixture(t, func(wc *workspace.Config, _ *tools.Config) {
		wc.Checks = wc.Checks[:1] // pass only
	})
	f.mustOK(t, tools.ToolRunCheck, tools.RunCheckArgs{Name: "pass"}, nil)
	if res, _ := f.w.Finish(context.Background(), ""); res.Status != bundle.StatusPassed {
		t.Errorf("status = %q, want passed", res.Status)
	}
	f.mustOK(t, tools.ToolReadFile, tools.ReadFileArgs{Path: "README.md"}, nil)
	f.mustOK(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "README.md", Old: "demo", New: "changed"}, nil)
	if res, _ := f.w.Finish(context.Background(), ""); res.Status != bundle.StatusFailed {
		t.Errorf("status after a change the check did not see = %q, want failed", res.Status)
	}
}
