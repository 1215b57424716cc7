package parser

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkTreeSecrets: grep -r over a tree of 2,000 files in 100
// directories, none a secret (the whole tree is looked at).
func BenchmarkTreeSecrets(b *testing.B) {
	ws := b.TempDir()
	for i := range 100 {
		d := filepath.Join(ws, "d", string(rune('a'+i%26)), string(rune('a'+i/26)))
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range 20 {
			if err := os.WriteFile(filepath.Join(d, string(rune('a'+j))+".go"), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, c := range []string{"grep -r KEY .", "grep KEY ./d/a/a/a.go"} {
		b.Run(c, func(b *testing.B) {
			for b.Loop() {
				if _, err := Parse(c, Cwd(ws), Workspace(ws), FollowSymlinks()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
