package testenv

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Chromium returns Debian's headless browser for a test that loads a page
// rivumi writes, skipping t when it is absent, except in CI (CI=true),
// which installs it (.ci/browser) and where its absence fails t. It skips
// inside a rivumi run too: Chromium needs its own sandbox (user
// namespaces, setuid) and unix sockets.
func Chromium(t testing.TB) string {
	t.Helper()
	SkipInsideRun(t, "Chromium's own sandbox (user namespaces, setuid) and its unix sockets")
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is required in CI: .ci/browser installs it (apt-get install chromium)")
	}
	t.Skip("chromium is not installed (apt-get install -y chromium); the pages are checked in CI")
	return ""
}

// LoadPage opens file in the headless browser bin with a fresh profile and
// returns the DOM after load and the browser's console and load errors
// (script errors, Content-Security-Policy refusals, failed loads).
func LoadPage(t testing.TB, bin, file string) (dom string, consoleErrors []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0",
		"--dump-dom", "file://"+file)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, errb.String())
	}
	for _, l := range strings.Split(errb.String(), "\n") {
		if strings.Contains(l, "CONSOLE") || strings.Contains(l, "Refused to") || strings.Contains(l, "net::ERR_") {
			consoleErrors = append(consoleErrors, l)
		}
	}
	return out.String(), consoleErrors
}
