package verdict_test

import (
	"strings"
	"testing"

	"github.com/rivumi/rivumi/verdict"
)

func TestRequestValidate(t *testing.T) {
	cmd := "ls"
	for _, tc := range []struct {
		name string
		r    verdict.Request
		want string // "" valid, else a substring of the error
	}{
		{"command", verdict.Text("ls"), ""},
		{"argv", verdict.Request{Argv: []string{"ls"}}, ""},
		{"neither", verdict.Request{}, `missing "command" or "argv"`},
		{"both", verdict.Request{Command: &cmd, Argv: []string{"ls"}}, "not both"},
		{"empty argv", verdict.Request{Argv: []string{}}, `empty "argv"`},
		{"relative cwd", verdict.Request{Command: &cmd, Cwd: "rel"}, `"cwd" must be an absolute path`},
		{"NUL in workspace", verdict.Request{Command: &cmd, Workspace: "/a\x00b"}, "NUL"},
		{"relative home", verdict.Request{Command: &cmd, Home: "~"}, `"home" must be an absolute path`},
		{"unknown shell", verdict.Request{Command: &cmd, Shell: "fish"}, `"shell" must be bash, sh or zsh`},
		{"shell path", verdict.Request{Command: &cmd, Shell: "/bin/dash"}, ""},
		{"empty grant", verdict.Request{Command: &cmd, Grants: []verdict.Grant{{Prefix: []string{"npm"}}}}, "grant 0"},
	} {
		err := tc.r.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.want)
		}
	}
}
