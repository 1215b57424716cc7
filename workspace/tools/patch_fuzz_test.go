package tools

import (
	"strings"
	"testing"
)

// parsePatch never panics, and what it accepts has only the headers it
// judges: every file has a path, and no accepted patch holds a rename,
// copy, mode or binary header between a diff --git line and its hunks.
func FuzzParsePatch(f *testing.F) {
	f.Add("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")
	f.Add("diff --git a/a b/b\nrename old a\nrename new b\nnew mode 120000\n")
	f.Add("--- /dev/null\n+++ b/new\n@@ -0,0 +1 @@\n+x\n")
	f.Fuzz(func(t *testing.T, p string) {
		files, err := parsePatch(p)
		if err != nil {
			return
		}
		for _, pf := range files {
			if pf.old == "" && pf.new == "" {
				t.Fatalf("a file with no path: %q", p)
			}
		}
		inHeader := false
		for _, line := range strings.Split(p, "\n") {
			switch {
			case strings.HasPrefix(line, "diff --git "):
				inHeader = true
			case strings.HasPrefix(line, "@@"):
				inHeader = false
			case inHeader && (strings.HasPrefix(line, "rename ") || strings.HasPrefix(line, "copy ") ||
				strings.HasPrefix(line, "old mode") || strings.HasPrefix(line, "new mode") ||
				strings.HasPrefix(line, "similarity") || modeLine(line, "120000") || modeLine(line, "160000")):
				t.Fatalf("accepted a header line %q in %q", line, p)
			}
		}
	})
}

// modeLine reports a header line that gives a file the mode m: an index
// line's third field, or a mode line's last word (a hash that happens to
// hold the digits is none).
func modeLine(line, m string) bool {
	f := strings.Fields(line)
	if strings.HasPrefix(line, "index ") {
		return len(f) == 3 && f[2] == m
	}
	return len(f) > 0 && f[len(f)-1] == m
}
