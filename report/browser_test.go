package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rivumi/rivumi/internal/testenv"
)

// chromium returns Debian's headless browser, skipping the test when it is
// absent, except in CI (CI=true), which installs it (.ci/browser).
func chromium(t *testing.T) string {
	t.Helper()
	testenv.SkipInsideRun(t, "Chromium's own sandbox (user namespaces, setuid) and its unix sockets")
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is required in CI: .ci/browser installs it (apt-get install chromium)")
	}
	t.Skip("chromium is not installed (apt-get install -y chromium); the report page is checked in CI")
	return ""
}

// loadPage opens file in headless Chromium with a fresh profile and
// returns the DOM after load and the browser's console and load errors.
func loadPage(t *testing.T, bin, file string) (dom string, consoleErrors []string) {
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
	// Console messages (script errors, CSP refusals, failed loads) are
	// logged as CONSOLE lines.
	for _, l := range strings.Split(errb.String(), "\n") {
		if strings.Contains(l, "CONSOLE") || strings.Contains(l, "Refused to") || strings.Contains(l, "net::ERR_") {
			consoleErrors = append(consoleErrors, l)
		}
	}
	return out.String(), consoleErrors
}

// TestReportPageInChromium: the HTML report of the fixture log loads in a
// real browser without console errors and shows the fixture's figures.
func TestReportPageInChromium(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := WriteHTML(&b, fixture(t), "rivumi decisions"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, errs := loadPage(t, bin, page)
	if len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	for _, want := range []string{
		`<strong id="events">13</strong>`,
		`<strong id="shadow">6</strong>`,
		`data-decision="allow">5<`, `data-decision="ask">5<`, `data-decision="deny">3<`,
		`data-shadow="ask">3<`,
		`data-rule="fallback.uncovered" data-verdict="ask">3<`,
		`data-rule="git.force-push" data-verdict="deny">2<`,
		`data-rule="floor.rm-critical" data-verdict="deny">1<`,
		`data-prefix="acmectl"`,
		"pattern: [acmectl]",
		"Decisions over time (per 5 minutes)",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the loaded page lacks %q", want)
		}
	}
	// The charts are in the DOM the browser built: one bar per decision
	// in each non-empty bucket, one per rule.
	if n := len(regexp.MustCompile(`<rect [^>]*data-decision=`).FindAllString(sectionOf(dom, "time-chart"), -1)); n != 12 {
		t.Errorf("time chart: %d bars, want 12", n)
	}
	if n := len(regexp.MustCompile(`<rect [^>]*data-rule=`).FindAllString(dom, -1)); n != 4 {
		t.Errorf("rule chart: %d bars, want 4", n)
	}
}

// TestBrowserCheckSeesErrors: the console check above is not blind: a page
// that tries to load an outside resource under the report's policy is
// reported.
func TestBrowserCheckSeesErrors(t *testing.T) {
	bin := chromium(t)
	page := filepath.Join(t.TempDir(), "bad.html")
	os.WriteFile(page, []byte(`<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"></head><body><img src="https://example.invalid/x.png"></body></html>`), 0o644)
	if _, errs := loadPage(t, bin, page); len(errs) == 0 {
		t.Error("a blocked outside image left no console error")
	}
}

// sectionOf returns the part of dom from the element with id on.
func sectionOf(dom, id string) string {
	i := strings.Index(dom, `id="`+id+`"`)
	if i < 0 {
		return ""
	}
	j := strings.Index(dom[i:], "</svg>")
	if j < 0 {
		return dom[i:]
	}
	return dom[i : i+j]
}
