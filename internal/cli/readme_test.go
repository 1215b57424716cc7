package cli

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeCommands: the README's two verbatim commands stay as they are,
// and every `rivumi …` line it shows names a registered command (a renamed
// command breaks this test rather than the newcomer's first hour).
func TestReadmeCommands(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, want := range []string{
		"\n    go run ./cmd/rivumi policy eval 'git push --force origin main && rm -rf ~/'\n",
		"\n    go test ./...\n",
		"\n    go install ./cmd/rivumi\n",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks the line %q", strings.TrimSpace(want))
		}
	}
	root := newTree(Stdio{})
	n := 0
	for _, line := range strings.Split(readme, "\n") {
		cmd, ok := strings.CutPrefix(line, "    rivumi ")
		if !ok {
			continue
		}
		n++
		cmd, _, _ = strings.Cut(cmd, " #")
		words := strings.Fields(cmd)
		c, rest, err := root.Find(words)
		if err != nil || c == root || (c.HasSubCommands() && len(rest) > 0 && !strings.HasPrefix(rest[0], "-")) {
			t.Errorf("README: %q names no command", strings.TrimSpace(line))
		}
	}
	if n < 5 {
		t.Errorf("found only %d rivumi lines in the README", n)
	}
}
