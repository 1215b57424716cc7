package parser_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/parser"
)

// TestStartVarsNotShared pins that what one command does to HOME, PWD and
// IFS is not seen by the next command parsed with the same home and cwd
// (the map of the start-up variables is reused by the next command: the
// walker's pooled scratch).
func TestStartVarsNotShared(t *testing.T) {
	opts := []parser.Option{parser.Workspace("/work/proj"), parser.Home("/home/dev")}
	probe := func() string {
		t.Helper()
		c, err := parser.Parse(`cat "$HOME/.ssh/id_rsa" "$PWD/a" $IFS`, opts...)
		if err != nil {
			t.Fatal(err)
		}
		s := c.Segments[len(c.Segments)-1]
		return fmt.Sprintf("%q %+v", s.Argv, s.Operands)
	}
	want := probe()
	for _, change := range []string{
		"HOME=/tmp/x; export HOME; cat ~/y",
		"unset HOME PWD IFS; cat $HOME",
		"IFS=/; cat $HOME",
		"cd /etc; cat $PWD/passwd",
		"export HOME=/; readonly HOME; cat ~",
		"declare -n HOME=x; cat $HOME",
		"(HOME=/a; cat ~) | (IFS=:; cat $PWD)",
		"f() { HOME=/b; }; f; cat ~",
	} {
		if _, err := parser.Parse(change, opts...); err != nil {
			t.Fatalf("%s: %v", change, err)
		}
		if got := probe(); got != want {
			t.Errorf("after %q the next command reads %s, want %s", change, got, want)
		}
	}
	other, err := parser.Parse(`cat "$HOME/x"`, parser.Workspace("/w"), parser.Home("/home/other"))
	if err != nil {
		t.Fatal(err)
	}
	if got := other.Segments[0].Argv[1]; got != "/home/other/x" {
		t.Errorf("another home reads %q", got)
	}
	if got := probe(); got != want {
		t.Errorf("after another home the next command reads %s, want %s", got, want)
	}
}

// TestStartVarsConcurrent parses commands that change the start-up
// variables from several goroutines (run with -race).
func TestStartVarsConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			home := parser.Home(fmt.Sprintf("/home/u%d", g%2))
			for range 200 {
				for _, c := range []string{"HOME=/x; cat ~", "unset IFS; cat $HOME", "cat $HOME/a", "cd /tmp && ls"} {
					if _, err := parser.Parse(c, parser.Workspace("/w"), home); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}
