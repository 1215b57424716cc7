package harness

import (
	"slices"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/verdict"
)

func TestSecretEnvName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"PATH", false}, {"LANG", false}, {"LC_ALL", false}, {"HOME", false}, {"TERM", false},
		{"GITHUB_TOKEN", true}, {"github_token", true}, {"GH_TOKEN", true}, {"OPENAI_API_KEY", true},
		{"ANTHROPIC_API_KEY", true}, {"AWS_SECRET_ACCESS_KEY", true}, {"DB_PASSWORD", true},
		{"Db_Credentials", true}, {"SSH_AUTH_SOCK", true}, {"XAUTHORITY", true}, {"npm_config__auth", true},
		{"CLIENT_SECRET", true}, {"Github_Actions", true}, {"MYSQL_PASSWD", true},
		{"LD_PRELOAD", true}, {"LD_LIBRARY_PATH", true}, {"BASH_ENV", true}, {"BASH_FUNC_x%%", true},
		{"NODE_OPTIONS", true}, {"GIT_SSH_COMMAND", true}, {"GIT_CONFIG_COUNT", true}, {"https_proxy", true},
	}
	for _, tt := range tests {
		if got := SecretEnvName(tt.name); got != tt.want {
			t.Errorf("SecretEnvName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestBuildEnv(t *testing.T) {
	base := []string{
		"PATH=.:/usr/bin::bin:/bin:/usr/bin", "HOME=/home/me", "LANG=C", "LC_CTYPE=C", "SECRET_TOKEN=x",
		"EDITOR=vim", "GIT_TERMINAL_PROMPT=1", "TMPDIR=/elsewhere", "malformed",
	}
	d := newRunDirs("/run/x")
	tests := []struct {
		name     string
		allow    []string
		keepHome bool
		want     map[string]string
		absent   []string
	}{
		{"defaults", DefaultEnvAllow, false,
			map[string]string{"PATH": "/usr/bin:/bin", "HOME": "/run/x/home", "LANG": "C", "LC_CTYPE": "C",
				"TMPDIR": "/run/x/tmp", "GIT_TERMINAL_PROMPT": "0", "GOCACHE": "/run/x/cache/go-build"},
			[]string{"SECRET_TOKEN", "EDITOR"}},
		{"keep home", DefaultEnvAllow, true, map[string]string{"HOME": "/home/me"}, nil},
		{"allow everything", []string{"*"}, false,
			map[string]string{"EDITOR": "vim", "GIT_TERMINAL_PROMPT": "0", "TMPDIR": "/run/x/tmp"},
			[]string{"SECRET_TOKEN"}},
		{"no PATH allowed", []string{"LANG"}, false, map[string]string{"PATH": defaultPATH}, []string{"LC_CTYPE"}},
	}
	for _, tt := range tests {
		env := buildEnv(base, tt.allow, tt.keepHome, d)
		if !slices.IsSorted(env) {
			t.Errorf("%s: not sorted", tt.name)
		}
		for k, v := range tt.want {
			if got := envValue(env, k); got != v {
				t.Errorf("%s: %s=%q, want %q", tt.name, k, got, v)
			}
		}
		for _, k := range tt.absent {
			for _, kv := range env {
				if strings.HasPrefix(kv, k+"=") {
					t.Errorf("%s: %s passed", tt.name, k)
				}
			}
		}
	}
}

// ExtraEnv passes what the caller named, secret words included, but never
// over the run's own directories; code-carrying names are refused.
func TestExtraEnv(t *testing.T) {
	d := newRunDirs(t.TempDir())
	env := buildEnv([]string{"PATH=/bin", "OTHER_TOKEN=no"}, DefaultEnvAllow, false, d, "ANTHROPIC_API_KEY=k", "TMPDIR=/elsewhere")
	got := strings.Join(env, "\n")
	if !strings.Contains(got, "ANTHROPIC_API_KEY=k") || strings.Contains(got, "OTHER_TOKEN") || strings.Contains(got, "TMPDIR=/elsewhere") {
		t.Errorf("environment:\n%s", got)
	}
	for _, kv := range []string{"LD_PRELOAD=/x.so", "BASH_ENV=/x", "=x", "NOEQUALS"} {
		if _, err := New(Config{Grader: verdict.GraderFunc(nil), ExtraEnv: []string{kv}}); err == nil {
			t.Errorf("extra environment %q accepted", kv)
		}
	}
}
