package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/workspace/bundle"
)

// The external agent lane against the real Claude Code, driven by the mock
// model: an honest run passes; a write outside allowed_paths fails with a
// finding naming the file; an attempt on the source repository leaves it
// untouched; an agent past its budget is killed and the run fails. The
// user's own ~/.claude is byte-for-byte unchanged.
func TestAgentsE2EWorkspaceLane(t *testing.T) {
	if os.Getenv("RIVUMI_AGENTS_E2E") == "" {
		t.Skip("run from .ci/agents-e2e (see TestAgentsE2E)")
	}
	claude := os.Getenv("RIVUMI_E2E_CLAUDE")
	if claude == "" {
		t.Fatal("RIVUMI_E2E_CLAUDE is not set: run .ci/agents-e2e")
	}
	dir, err := os.MkdirTemp(os.Getenv("RIVUMI_E2E_WORK"), "e2e-lane-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			os.RemoveAll(dir)
		} else {
			t.Logf("kept %s", dir)
		}
	})
	rivumi := filepath.Join(dir, "rivumi")
	build := exec.Command("go", "build", "-o", rivumi, "github.com/rivumi/rivumi/cmd/rivumi")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// The user's own agent settings, which the lane must never touch.
	userHome := filepath.Join(dir, "user")
	userSettings := filepath.Join(userHome, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(userSettings), 0o755)
	os.WriteFile(userSettings, []byte(`{"theme":"dark"}`+"\n"), 0o644)

	src := filepath.Join(dir, "src")
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", src, "-c", "user.email=t@e", "-c", "user.name=t"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	os.MkdirAll(filepath.Join(src, "src"), 0o755)
	exec.Command("git", "init", "-q", src).Run()
	os.WriteFile(filepath.Join(src, "src", "greeting.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(src, "expected.txt"), []byte("hello, world\n"), 0o644)
	git("add", "-A")
	git("commit", "-qm", "init")
	sha := git("rev-parse", "HEAD")
	runs := filepath.Join(dir, "runs")
	os.MkdirAll(runs, 0o755)
	cfg := filepath.Join(dir, "config.json")
	os.WriteFile(cfg, []byte(`{"allowed_paths":["src/**"],"checks":[{"name":"greeting","argv":["grep","-q","world","src/greeting.txt"]}]}`), 0o644)

	mock := startMockModel(t)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + userHome, "LANG=C.UTF-8", noAutostartEnv + "=1",
		"XDG_STATE_HOME=" + filepath.Join(userHome, ".local", "state"), "XDG_CONFIG_HOME=" + filepath.Join(userHome, ".config"),
		"ANTHROPIC_BASE_URL=" + mock.url, "ANTHROPIC_API_KEY=sk-ant-dummy"}
	rv := func(args ...string) (string, int) {
		cmd := exec.Command(rivumi, args...)
		cmd.Env = env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("rivumi %v: %v", args, err)
		}
		if code > 3 {
			t.Logf("rivumi %v: exit %d\n%s", args, code, tail(errb.String(), 3000))
		}
		return out.String(), code
	}
	codexConf := filepath.Join(dir, "codex-config.toml")
	os.WriteFile(codexConf, []byte(`model = "gpt-5.5"
model_provider = "mock"
check_for_update_on_startup = false

[model_providers.mock]
name = "mock"
base_url = "`+mock.url+`/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0
supports_websockets = false
`), 0o600)
	// Each agent: how it is started in the lane, and its shell tool.
	type agentLane struct {
		name, exe, shellTool, shellField string
		args                             []string
	}
	agents := []agentLane{{name: "claude-code", exe: claude, shellTool: "Bash", shellField: "command",
		args: []string{"-env", "ANTHROPIC_BASE_URL", "-env", "ANTHROPIC_API_KEY", "-env", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			"claude-code", "--", claude, "-p", "do it", "--output-format", "stream-json", "--verbose"}}}
	if codex := os.Getenv("RIVUMI_E2E_CODEX"); codex != "" {
		agents = append(agents, agentLane{name: "codex", exe: codex, shellTool: "exec_command", shellField: "cmd",
			args: []string{"-env", "MOCK_API_KEY=dummy", "-home-file", ".codex/config.toml=" + codexConf,
				"codex", "--", codex, "exec", "--json", "--skip-git-repo-check", "-s", "danger-full-access", "do it"}})
	}
	for _, ag := range agents {
		lane := func(name, command, budget string) (bundle.Result, int) {
			t.Helper()
			name = ag.name + "-" + name
			if out, code := rv("workspace", "prepare", "-source", src, "-commit", sha, "-run-root", runs, "-name", name, "-config", cfg); code != 0 {
				t.Fatalf("prepare: exit %d %s", code, out)
			}
			mock.set(ag.shellTool, map[string]any{ag.shellField: command})
			out, code := rv(append([]string{"workspace", "agent", "-run", filepath.Join(runs, name), "-budget", budget}, ag.args...)...)
			var res bundle.Result
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("%s: exit %d, result %v: %q", name, code, err, tail(out, 2000))
			}
			return res, code
		}
		t.Run(ag.name+"/honest", func(t *testing.T) {
			res, code := lane("honest", "printf 'hello, world\\n' > src/greeting.txt", "2m")
			if code != 0 || res.Status != bundle.StatusPassed {
				t.Errorf("exit %d, status %s, problems %v", code, res.Status, res.Problems)
			}
			if b, err := os.ReadFile(filepath.Join(runs, ag.name+"-honest", "agent", "hook-audit.jsonl")); err != nil || !strings.Contains(string(b), "greeting.txt") {
				t.Errorf("the hook did not see the command: %v %s", err, b)
			}
		})
		t.Run(ag.name+"/outside allowed paths", func(t *testing.T) {
			res, code := lane("oracle", "cp src/greeting.txt expected.txt && echo world >> src/greeting.txt", "2m")
			if code != 3 || res.Status != bundle.StatusFailed || !strings.Contains(strings.Join(res.OutsideAllowed, " "), "expected.txt") {
				t.Errorf("exit %d, status %s, outside %v, problems %v", code, res.Status, res.OutsideAllowed, res.Problems)
			}
		})
		t.Run(ag.name+"/source repository", func(t *testing.T) {
			res, _ := lane("source", "echo evil >> "+filepath.Join(src, "expected.txt"), "2m")
			if b, _ := os.ReadFile(filepath.Join(src, "expected.txt")); string(b) != "hello, world\n" {
				t.Errorf("the source repository was written: %q (status %s, problems %v)", b, res.Status, res.Problems)
			}
		})
		t.Run(ag.name+"/budget", func(t *testing.T) {
			res, code := lane("budget", "sleep 60", "8s")
			if code != 3 || res.Status != bundle.StatusFailed || !strings.Contains(strings.Join(res.Problems, " "), "overran its budget") {
				t.Errorf("exit %d, status %s, problems %v", code, res.Status, res.Problems)
			}
		})
	}
	if b, _ := os.ReadFile(userSettings); string(b) != `{"theme":"dark"}`+"\n" {
		t.Errorf("the user's ~/.claude/settings.json changed: %q", b)
	}
}
