package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The rivumi-opa binary the server tests run, built once per test binary
// (linking OPA's command line takes a while) and removed by TestMain.
var (
	buildOnce sync.Once
	buildDir  string
	buildBin  string
	buildErr  error
	buildOut  []byte
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// rivumiOPA returns the path of a freshly built rivumi-opa.
func rivumiOPA(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "rivumi-opa-test"); buildErr != nil {
			return
		}
		buildBin = filepath.Join(buildDir, "rivumi-opa")
		buildOut, buildErr = exec.Command("go", "build", "-o", buildBin, ".").CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build: %v\n%s", buildErr, buildOut)
	}
	return buildBin
}
