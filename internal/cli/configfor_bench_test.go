package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkConfigFor is the per-request cost of finding a call's
// configuration and naming it (serve's WithConfigs): a project with a
// .rivumi.yaml, no compilation. The files count as old (no racy window),
// so that the answer is remembered, as it is past the first seconds.
func BenchmarkConfigFor(b *testing.B) {
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 0
	foundConfigs.reset()
	dir := b.TempDir()
	b.Setenv("HOME", dir)
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	cfg := "rules:\n  - id: team.no-cowsay\n    pattern: [cowsay]\n    decision: deny\n    justification: No cows.\n    match: [cowsay hi]\n"
	if err := os.WriteFile(filepath.Join(proj, ".rivumi.yaml"), []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	var pf policyFlags
	ctx := context.Background()
	for b.Loop() {
		if _, _, err := pf.configFor(ctx, filepath.Join(proj, "sub")); err != nil {
			b.Fatal(err)
		}
	}
}
