package workspace_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/workspace"
)

// bigPatch is a unified diff of about mb MiB of added lines over many
// files, a fake token on one line of every 1000.
func bigPatch(mb int) string {
	var b strings.Builder
	for f := 0; b.Len() < mb<<20; f++ {
		fmt.Fprintf(&b, "diff --git a/src/f%d.go b/src/f%d.go\nnew file mode 100644\n--- /dev/null\n+++ b/src/f%d.go\n@@ -0,0 +1,1000 @@\n", f, f, f)
		for i := range 1000 {
			if i == 500 {
				fmt.Fprintf(&b, "+\ttoken := \"ghp_%036d\"\n", f)
				continue
			}
			fmt.Fprintf(&b, "+\tx%d := compute(%d, \"some text here\") // comment %d\n", i, i*f, i)
		}
	}
	return b.String()
}

func BenchmarkScanPatch(b *testing.B) {
	p := bigPatch(scanMB)
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		files, ff := workspace.ScanPatch(p)
		if len(ff) != len(files) {
			b.Fatalf("%d findings in %d files", len(ff), len(files))
		}
	}
}

var scanMB = 28

// BenchmarkRedactPatch: the redaction of changes.patch as finish writes it.
func BenchmarkRedactPatch(b *testing.B) {
	p := bigPatch(scanMB)
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		if strings.Contains(audit.Redact(p), "ghp_") {
			b.Fatal("a token left")
		}
	}
}
