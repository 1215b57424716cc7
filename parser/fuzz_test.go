package parser_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"testing"
	"time"

	"github.com/rivumi/rivumi/parser"
)

// FuzzParse checks that Parse never panics or hangs, in every dialect, and
// is deterministic: parsing the same text twice gives the same Command (as
// JSON). It also checks the shape of the result: a parse error comes with
// Shape.Error and no segments, and every segment's parallel slices line up.
// Seeds live in testdata/fuzz/FuzzParse; `go test` runs them, `go test
// -fuzz FuzzParse` explores from them.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, text string) {
		// The check runs in the fuzzing goroutine, so a panic fails this
		// input with its stack; a watchdog reports a hang with every
		// goroutine's stack.
		watchdog := time.AfterFunc(hangAfter, func() {
			debug.SetTraceback("all")
			panic(fmt.Sprintf("Parse(%q) still runs after %v", text, hangAfter))
		})
		defer watchdog.Stop()
		if msg := checkParse(text); msg != "" {
			t.Fatal(msg)
		}
	})
}

// hangAfter is far above what any input up to MaxBytes needs (milliseconds).
const hangAfter = 10 * time.Second

// checkParse returns what is wrong with parsing text, or "".
func checkParse(text string) string {
	for _, shell := range []string{"bash", "sh", "zsh"} {
		opts := []parser.Option{
			parser.Shell(shell), parser.Workspace("/work/proj"), parser.Home("/home/dev"),
			parser.MaxBytes(64 << 10),
		}
		a, errA := parser.Parse(text, opts...)
		b, errB := parser.Parse(text, opts...)
		if a == nil || b == nil {
			return fmt.Sprintf("%s: Parse(%q) returned a nil Command", shell, text)
		}
		if (errA == nil) != (errB == nil) {
			return fmt.Sprintf("%s: Parse(%q): errors differ: %v / %v", shell, text, errA, errB)
		}
		ja, err := json.Marshal(a)
		if err != nil {
			return fmt.Sprintf("%s: Parse(%q): marshal: %v", shell, text, err)
		}
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			return fmt.Sprintf("%s: Parse(%q) is not deterministic:\n%s\n%s", shell, text, ja, jb)
		}
		if errA != nil {
			if a.Shape.Error == nil {
				return fmt.Sprintf("%s: Parse(%q): error %v without Shape.Error", shell, text, errA)
			}
			if len(a.Segments) != 0 {
				return fmt.Sprintf("%s: Parse(%q): error %v with %d segments", shell, text, errA, len(a.Segments))
			}
		}
		for i, s := range a.Segments {
			if s.Index != i || len(s.Dynamic) != len(s.Argv) || s.Parent >= i || s.Parent < -1 {
				return fmt.Sprintf("%s: Parse(%q): segment %d malformed: index %d parent %d argv %d dynamic %d",
					shell, text, i, s.Index, s.Parent, len(s.Argv), len(s.Dynamic))
			}
		}
	}
	return ""
}
