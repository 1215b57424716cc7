package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docCommand is a `rivumi …` command in a code line of the docs.
var docCommand = regexp.MustCompile(`(?:^|[\s(])rivumi ((?:policy|hook|grant|workspace|audit|run|serve|trust|mcp|man|version|completion)\b.*)`)

// TestDocsCommandFlags: every `rivumi COMMAND …` in a code block of the
// README and docs/*.md parses with the command's flags as they are now
// (the Go flag spellings the pages use, -run DIR, included).
func TestDocsCommandFlags(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fenced := false
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				fenced = !fenced
				continue
			}
			if !fenced && !strings.HasPrefix(line, "    ") {
				continue
			}
			for _, m := range docCommand.FindAllStringSubmatch(line, -1) {
				root := newTree(Stdio{})
				cmd, rest, err := root.Find(shellWords(m[1]))
				if err == nil && cmd.HasSubCommands() && (len(rest) == 0 || strings.HasPrefix(rest[0], "-")) {
					continue // a group's help
				}
				if err != nil || cmd.HasSubCommands() {
					t.Errorf("%s:%d: %q names no command", filepath.Base(f), i+1, m[1])
					continue
				}
				if err := declareFlags(cmd, Stdio{}); err != nil {
					t.Fatal(err)
				}
				n++
				fs := &flagSet{FlagSet: cmd.Flags(), interspersed: true}
				switch strings.TrimPrefix(cmd.CommandPath(), "rivumi ") {
				case "run", "grant add", "grant rm", "workspace agent":
					fs.SetInterspersed(false)
				}
				if err := parseArgs(fs, rest); err != nil {
					t.Errorf("%s:%d: %q: %v", filepath.Base(f), i+1, m[1], err)
				}
			}
		}
	}
	t.Logf("%d commands", n)
	if n < 50 {
		t.Errorf("found only %d commands in the docs' code", n)
	}
}

// shellWords splits the start of a shell command line into words, quotes
// removed, up to an operator, a redirection or a comment: enough for the
// docs' examples, which quote their arguments plainly.
func shellWords(s string) []string {
	var out []string
	var w strings.Builder
	inWord, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t' || c == '\\':
			if inWord {
				out = append(out, w.String())
				w.Reset()
				inWord = false
			}
		case strings.IndexByte("|;&<>#`)", c) >= 0:
			if inWord {
				out = append(out, w.String())
			}
			return out
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, w.String())
	}
	return out
}
