package parser_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rivumi/rivumi/internal/benchdata"
	"github.com/rivumi/rivumi/parser"
)

// BenchmarkParse parses the realistic mix; ns/op is per command.
func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	start, n := benchdata.CPUNanos(), 0
	for i := 0; b.Loop(); i++ {
		cmd := benchdata.Mix[i%len(benchdata.Mix)]
		if _, err := parser.Parse(cmd, parser.Workspace("/work/proj"), parser.Home("/home/dev")); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(benchdata.CPUNanos()-start)/float64(n), "cpu-ns/op")
}

// BenchmarkParseCwd parses the mix as `rivumi serve` does with no cache
// hit: a cwd and workspace given with every command; ns/op, B/op and
// allocs/op are per command.
//   - unique: a different, non-existent /work/projN per call (what
//     `benchtool load -unique-cwd` sends; serve's default, no symlinks
//     followed);
//   - unique-follow: the same, with paths resolved on disk
//     ([parser.FollowSymlinks], as hooks and run grade): nothing exists;
//   - tempdir-follow: a real directory as cwd = workspace, with a file and
//     a link in it, paths resolved on disk.
func BenchmarkParseCwd(b *testing.B) {
	dirs := make([]string, 4096)
	for i := range dirs {
		dirs[i] = "/work/proj" + strconv.Itoa(i)
	}
	tmp := b.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte("{}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(tmp, "src")); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		dir    func(i int) string
		follow bool
	}{
		{"unique", func(i int) string { return dirs[i%len(dirs)] }, false},
		{"unique-follow", func(i int) string { return dirs[i%len(dirs)] }, true},
		{"tempdir-follow", func(int) string { return tmp }, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			start, n := benchdata.CPUNanos(), 0
			opts := make([]parser.Option, 0, 3)
			for i := 0; b.Loop(); i++ {
				cmd := benchdata.Mix[i%len(benchdata.Mix)]
				dir := bc.dir(i)
				opts = append(opts[:0], parser.Cwd(dir), parser.Workspace(dir))
				if bc.follow {
					opts = append(opts, parser.FollowSymlinks())
				}
				if _, err := parser.Parse(cmd, opts...); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64(benchdata.CPUNanos()-start)/float64(n), "cpu-ns/op")
		})
	}
}
