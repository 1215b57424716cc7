package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/internal/testenv"
)

// chromium and loadPage are testenv's browser helpers, shared with the
// replay page's test.
var (
	chromium = testenv.Chromium
	loadPage = testenv.LoadPage
)

// TestReportPageInChromium: the HTML report of the fixture log loads in a
// real browser without console errors and shows the fixture's figures.
func TestReportPageInChromium(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := WriteHTML(&b, fixture(t), "rivumi decisions", ReplayPage("replay.html")); err != nil {
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
		`<span class="rule-title" data-rule="git.force-push">Force push</span>`,
		`e.g. <code class="example">git push -f origin main</code>`,
		`data-source="hook/claude-code" data-verdict="ask">3<`,
		`data-source="opa" data-verdict="deny">1<`,
		`data-source="harness" data-verdict="allow">0<`,
		`<a href="replay.html">replay.html</a>`,
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
