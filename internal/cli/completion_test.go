package cli

import (
	"bytes"
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// rivumi __complete: command paths word by word, a command's flags, and
// nothing where the shell should complete paths.
func TestComplete(t *testing.T) {
	tests := []struct {
		words []string
		want  []string // all of these, in order, among the candidates
		none  bool     // no candidate at all
	}{
		{[]string{"po"}, []string{"policy"}, false},
		{[]string{"policy", "te"}, []string{"test"}, false},
		{[]string{"policy", ""}, []string{"build", "check", "eval", "explain", "fmt", "test"}, false},
		{[]string{"policy", "test", "--fail"}, []string{"--fail-under"}, false},
		{[]string{"run", "--allow"}, []string{"--allow-network"}, false},
		{[]string{"policy", "test", "poli"}, nil, true},
		{[]string{"__comp"}, nil, true},
		{[]string{"nosuch", "x"}, nil, true},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		if code := Main(context.Background(), append([]string{"__complete"}, tt.words...), Stdio{In: strings.NewReader(""), Out: &out, Err: &out}); code != 0 {
			t.Fatalf("%q: exit %d", tt.words, code)
		}
		got := strings.Fields(out.String())
		if tt.none && len(got) != 0 {
			t.Errorf("%q: candidates %q, want none", tt.words, got)
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: candidates %q lack %q", tt.words, got, w)
			}
		}
	}
}

// Each script is valid for its shell where the shell is installed, and
// bash's completes through the binary.
func TestCompletionScripts(t *testing.T) {
	for sh, script := range completionScripts {
		var out bytes.Buffer
		if code := Main(context.Background(), []string{"completion", sh}, Stdio{In: strings.NewReader(""), Out: &out, Err: &out}); code != 0 || out.String() != script {
			t.Errorf("completion %s: exit %d", sh, code)
		}
		if _, err := exec.LookPath(sh); err != nil || sh == "fish" {
			continue
		}
		if b, err := exec.Command(sh, "-n", "-c", script).CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v\n%s", sh, err, b)
		}
	}
	if code := Main(context.Background(), []string{"completion", "tcsh"}, Stdio{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}); code != ExitError {
		t.Errorf("completion tcsh: exit %d, want %d", code, ExitError)
	}
}
