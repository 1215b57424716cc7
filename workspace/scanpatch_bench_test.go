package workspace_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/internal/gittest"
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

// BenchmarkFinishBigDiff: finish on a change of scanMB MiB (a tracked
// file rewritten with many lines), reporting the bytes allocated.
func BenchmarkFinishBigDiff(b *testing.B) {
	src, sha := gittest.Repo(b, map[string]string{"big.go": "package big\n"})
	w, err := workspace.Prepare(context.Background(), workspace.PrepareOptions{
		Source: src, Commit: sha, RunRoot: b.TempDir(), Name: "run"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	p := bigPatch(scanMB)
	if err := os.WriteFile(filepath.Join(w.Dir(), "big.go"), []byte(p), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(p)))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		res, err := w.Finish(context.Background(), "")
		if err != nil || len(res.Findings) == 0 {
			b.Fatalf("finish: %v %+v", err, res.Findings)
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "MiB-alloc/op")
}
