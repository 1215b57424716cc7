package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/workspace/internal/gittest"
	"github.com/rivumi/rivumi/workspace/tools"
)

const modifyAndAdd = `diff --git a/src/main.go b/src/main.go
--- a/src/main.go
+++ b/src/main.go
@@ -1,3 +1,3 @@
 package main
 
-func main() { println("hello") }
+func main() { println("patched") }
diff --git a/new/file.txt b/new/file.txt
new file mode 100644
--- /dev/null
+++ b/new/file.txt
@@ -0,0 +1,2 @@
+brand new
+AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY
`

func TestApplyPatchAddsIntentToAdd(t *testing.T) {
	f := newFixture(t)
	var out tools.ApplyPatchOutput
	f.mustOK(t, tools.ToolApplyPatch, tools.ApplyPatchArgs{Patch: modifyAndAdd}, &out)
	if strings.Join(out.Files, ",") != "src/main.go,new/file.txt" || strings.Join(out.Added, ",") != "new/file.txt" {
		t.Errorf("apply_patch = %+v", out)
	}
	if len(out.Findings) != 1 || out.Findings[0].Kind != "aws-secret-key" {
		t.Errorf("findings = %+v", out.Findings)
	}
	if !strings.Contains(f.file(t, "src/main.go"), "patched") || !strings.HasPrefix(f.file(t, "new/file.txt"), "brand new") {
		t.Error("patch not applied")
	}
	// The new file is in the index as intent-to-add, so the diff shows it.
	if got := gittest.Git(t, f.w.Dir(), "ls-files", "--", "new/file.txt"); got != "new/file.txt" {
		t.Errorf("new file not added with --intent-to-add: %q", got)
	}
	var d tools.GitDiffOutput
	f.mustOK(t, tools.ToolGitDiff, tools.GitDiffArgs{}, &d)
	if !strings.Contains(d.Diff, "+brand new") || !strings.Contains(d.Diff, `+func main() { println("patched") }`) {
		t.Errorf("git_diff misses the change:\n%s", d.Diff)
	}
	if strings.Contains(d.Diff, "wJalrXUtnFEMI") {
		t.Error("git_diff output not redacted")
	}
	evs, _ := f.w.Bundle().Events()
	if len(evs[0].Findings) != 1 {
		t.Errorf("the patch's finding is not in its event: %+v", evs[0])
	}
	// A replace after the patch needs a new read: the file changed.
	f.mustRefuse(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/main.go", Old: "patched", New: "x"}, "read_file first")
}

func TestApplyPatchRefusals(t *testing.T) {
	f := newFixture(t)
	os.Symlink("../docs", filepath.Join(f.w.Dir(), "src", "docs"))
	tests := []struct{ name, patch, want string }{
		{"binary", "diff --git a/src/b.bin b/src/b.bin\nnew file mode 100644\nindex 0000000..e69de29\nBinary files /dev/null and b/src/b.bin differ\n", "binary"},
		{"git binary", "diff --git a/src/b.bin b/src/b.bin\nnew file mode 100644\nGIT binary patch\nliteral 1\nIcmZpc00001\n\nliteral 0\nHcmV?d00001\n", "binary"},
		{"rename", "diff --git a/src/main.go b/src/m.go\nsimilarity index 100%\nrename from src/main.go\nrename to src/m.go\n", "renames"},
		{"copy", "diff --git a/src/main.go b/src/c.go\nsimilarity index 100%\ncopy from src/main.go\ncopy to src/c.go\n", "copies"},
		{"symlink", "diff --git a/src/l b/src/l\nnew file mode 120000\n--- /dev/null\n+++ b/src/l\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n", "symlinks"},
		{"mode change", "diff --git a/src/main.go b/src/main.go\nold mode 100644\nnew mode 100755\n", "mode changes"},
		{".git", "--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-x\n+y\n", ".git"},
		{"dot-dot", "--- a/../outside\n+++ b/../outside\n@@ -1 +1 @@\n-x\n+y\n", `".."`},
		{"not allowed", "--- a/docs/guide.txt\n+++ b/docs/guide.txt\n@@ -1 +1 @@\n-guide\n+x\n", "allowed paths"},
		{"through a symlink", "--- /dev/null\n+++ b/src/docs/new.txt\n@@ -0,0 +1 @@\n+x\n", "passes through a symlink"},
		{"exists", "--- /dev/null\n+++ b/src/main.go\n@@ -0,0 +1 @@\n+x\n", "already exists"},
		{"no headers", "just text\n", "no file headers"},
		{"does not apply", "--- a/src/main.go\n+++ b/src/main.go\n@@ -1 +1 @@\n-not there\n+x\n", "patch"},
	}
	before := f.file(t, "src/main.go")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.mustRefuse(t, tools.ToolApplyPatch, tools.ApplyPatchArgs{Patch: tt.patch}, tt.want)
		})
	}
	if f.file(t, "src/main.go") != before {
		t.Error("a refused patch changed src/main.go")
	}
	if _, err := os.Stat(filepath.Join(f.w.Dir(), "docs", "new.txt")); err == nil {
		t.Error("a patch wrote through a symlink")
	}
	if out := gittest.Git(t, f.w.Dir(), "status", "--porcelain", "--untracked-files=all"); out != "?? src/docs" {
		t.Errorf("refused patches left changes: %q", out)
	}
}

// Hostile patches: every header git reads beyond a plain modification,
// creation or deletion of a regular file is refused before git applies
// anything, naming what it is; the work tree stays as it was.
func TestApplyPatchRefusesHostileHeaders(t *testing.T) {
	for _, c := range []struct{ name, patch, want string }{
		{"rename old/new (git's older spelling)", "diff --git a/README.md b/src/link\nsimilarity index 90%\nrename old README.md\nrename new src/link\nnew mode 120000\n", "renames and copies are not applied (delete and add instead): README.md, src/link"},
		{"rename from/to", "diff --git a/README.md b/src/x.md\nsimilarity index 100%\nrename from README.md\nrename to src/x.md\n", "renames and copies"},
		{"copy", "diff --git a/README.md b/src/x.md\nsimilarity index 100%\ncopy from README.md\ncopy to src/x.md\n", "renames and copies"},
		{"mode change", "diff --git a/src/main.go b/src/main.go\nold mode 100644\nnew mode 100755\n", "mode changes"},
		{"new executable file", "diff --git a/src/run b/src/run\nnew file mode 100755\n--- /dev/null\n+++ b/src/run\n@@ -0,0 +1 @@\n+#!/bin/sh\n", "executable"},
		{"new symlink", "diff --git a/src/l b/src/l\nnew file mode 120000\n--- /dev/null\n+++ b/src/l\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n", "symlinks"},
		{"symlink in the index line", "diff --git a/src/main.go b/src/main.go\nindex 1234567..89abcde 120000\n--- a/src/main.go\n+++ b/src/main.go\n@@ -1 +1 @@\n-package main\n+x\n", "symlinks"},
		{"unknown header line", "diff --git a/src/main.go b/src/main.go\nfrobnicate src/other\n--- a/src/main.go\n+++ b/src/main.go\n@@ -1 +1 @@\n-package main\n+x\n", "unknown line"},
		{"binary", "diff --git a/src/b b/src/b\nnew file mode 100644\nGIT binary patch\nliteral 1\nIcmZpY000310RR91\n\nliteral 0\nHcmV?d00001\n\n", "binary"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			before := gittest.Git(t, f.w.Dir(), "status", "--porcelain")
			f.mustRefuse(t, tools.ToolApplyPatch, tools.ApplyPatchArgs{Patch: c.patch}, c.want)
			if after := gittest.Git(t, f.w.Dir(), "status", "--porcelain"); after != before {
				t.Errorf("the work tree changed: %q", after)
			}
			if _, err := os.Lstat(filepath.Join(f.w.Dir(), "src", "link")); err == nil {
				t.Error("a symlink was made")
			}
		})
	}
}
