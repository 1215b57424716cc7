package hook_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rivumi/rivumi/hook"
)

// Twenty concurrent installs into one settings file (each a different
// hook command, so none replaces another) all survive, and the backup is
// a whole file.
func TestInstallConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	const n = 20
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = hook.Install(path, hook.Entry{
				Agent: hook.ClaudeCode, Command: fmt.Sprintf("/opt/guard%02d check", i), Matcher: "Bash", Timeout: 10 * time.Second,
			})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, g := range settings.Hooks["PreToolUse"] {
		for _, h := range g.Hooks {
			seen[h.Command] = true
		}
	}
	if len(seen) != n {
		t.Fatalf("%d of %d concurrent installs survived", len(seen), n)
	}
	bak, err := os.ReadFile(path + ".bak")
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(bak) {
		t.Errorf("backup is not whole JSON: %q", bak)
	}
}
