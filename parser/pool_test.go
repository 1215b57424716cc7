package parser_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/internal/benchdata"
	"github.com/rivumi/rivumi/parser"
)

// TestParseConcurrent parses the benchmark mix, one command after another
// and then from several goroutines at once, with a cwd per call (some with
// paths resolved on disk): the walker's pooled scratch (the walker, visited
// nodes, sweepers, parsers, resolved links) must leave no trace from one
// Parse in another, so every result is the one parsed alone. Run it with
// -race.
func TestParseConcurrent(t *testing.T) {
	cmds := append(append([]string{}, benchdata.Mix...), benchdata.Nested(3), benchdata.Segments(40),
		"f() { rm -rf /; }; f", "x=$(bash -c 'echo $(id)'); eval \"$x\"", "cat <<EOF | sh\nrm -rf ~\nEOF")
	tmp := t.TempDir()
	for _, l := range [][2]string{{"/etc", "src"}, {"/", "frontend"}, {"loop", "loop"}} {
		if err := os.Symlink(l[0], filepath.Join(tmp, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	opts := func(i int) []parser.Option {
		if i%3 == 0 { // paths resolved on disk, through the links in tmp
			return []parser.Option{parser.Cwd(tmp), parser.Workspace(tmp), parser.Home("/home/dev"), parser.FollowSymlinks()}
		}
		dir := "/work/proj" + string(rune('a'+i%7))
		return []parser.Option{parser.Cwd(dir + "/sub"), parser.Workspace(dir), parser.Home("/home/dev")}
	}
	encode := func(i int) string {
		cmd, _ := parser.Parse(cmds[i%len(cmds)], opts(i)...)
		b, err := json.Marshal(cmd)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const n = 400
	want := make([]string, n)
	for i := range want {
		want[i] = encode(i)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += 4 {
				if got := encode(i); got != want[i] {
					t.Errorf("command %d (%q) parsed concurrently:\n%s\nalone:\n%s", i, cmds[i%len(cmds)], got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}
