package cli

import (
	"bytes"
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// rivumi __complete (cobra's): command paths word by word, a command's
// flags, the values of flags and operands that take one of a few words,
// and nothing where the shell should complete paths.
func TestComplete(t *testing.T) {
	tests := []struct {
		words []string
		want  []string // all of these among the candidates
		none  bool     // no candidate at all
	}{
		{[]string{"po"}, []string{"policy"}, false},
		{[]string{"policy", "te"}, []string{"test"}, false},
		{[]string{"policy", ""}, []string{"build", "check", "eval", "explain", "fmt", "test"}, false},
		{[]string{"policy", "test", "--fail"}, []string{"--fail-under"}, false},
		{[]string{"policy", "test", "policies", "--fail"}, []string{"--fail-under"}, false},
		{[]string{"run", "--allow"}, []string{"--allow-network"}, false},
		{[]string{"policy", "test", "--format", ""}, []string{"text", "json", "junit", "github"}, false},
		{[]string{"policy", "eval", "--format", "j"}, []string{"json"}, false},
		{[]string{"run", "--sandbox", "b"}, []string{"bwrap"}, false},
		{[]string{"hook", "install", "cl"}, []string{"claude-code"}, false},
		{[]string{"hook", "install", "claude-code", ""}, nil, true},
		{[]string{"help", "pol"}, []string{"policy"}, false},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish", "powershell"}, false},
		{[]string{"policy", "test", "poli"}, nil, true},
		{[]string{"nosuch", "x"}, nil, true},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if code := Main(context.Background(), append([]string{"__completeNoDesc"}, tt.words...), Stdio{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 {
			t.Fatalf("%q: exit %d: %s", tt.words, code, errb.String())
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if !strings.HasPrefix(l, ":") { // the directive
				got = append(got, l)
			}
		}
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

// Each script is valid for its shell where the shell is installed.
func TestCompletionScripts(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		var out bytes.Buffer
		if code := Main(context.Background(), []string{"completion", sh}, Stdio{In: strings.NewReader(""), Out: &out, Err: &out}); code != 0 || !strings.Contains(out.String(), "rivumi") {
			t.Errorf("completion %s: exit %d\n%s", sh, code, out.String())
		}
		if _, err := exec.LookPath(sh); err != nil || sh == "fish" || sh == "powershell" {
			continue
		}
		if b, err := exec.Command(sh, "-n", "-c", out.String()).CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v\n%s", sh, err, b)
		}
	}
	if code := Main(context.Background(), []string{"completion", "tcsh"}, Stdio{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}); code != ExitError {
		t.Errorf("completion tcsh: exit %d, want %d", code, ExitError)
	}
}
