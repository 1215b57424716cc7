package replay_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/internal/testenv"
	"github.com/rivumi/rivumi/replay"
)

func page(t *testing.T, s *replay.Summary, title string) string {
	t.Helper()
	var b bytes.Buffer
	if err := replay.WriteHTML(&b, s, title); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// changeClasses are the classes of the page's change blocks, in order.
var changeBlock = regexp.MustCompile(`<div class="change ([a-z-]+)" data-from="([a-z]+)" data-to="([a-z]+)">`)

func changeOrder(p string) []string {
	var out []string
	for _, m := range changeBlock.FindAllStringSubmatch(p, -1) {
		out = append(out, m[2]+"→"+m[3]+":"+m[1])
	}
	return out
}

func TestWriteHTMLKnownReplay(t *testing.T) {
	p := page(t, knownReplay(t), "replay <team-next>")
	for _, bad := range []string{"<script", "src=", "href=", "url(", "@import", "http://", "https://", "ghp_"} {
		if strings.Contains(p, bad) {
			t.Errorf("the page holds %q: it must load nothing and show no secret", bad)
		}
	}
	for _, want := range []string{
		"default-src 'none'",
		"<title>replay &lt;team-next&gt;</title>",
		`<strong id="replayed">6</strong>`, `<strong id="lines">13</strong>`, `<strong id="skipped">6</strong>`,
		`id="changed">5<`, `id="unchanged">1<`, `id="became-allow">4<`,
		`<td class="n became-allow" data-from="ask" data-to="allow">4</td>`,
		`<td class="n tightens" data-from="ask" data-to="deny">1</td>`,
		`<span class="badge">became allow</span>`,
		"<code>acmectl status --token=[REDACTED]</code>",
		`<code>acmectl status</code> <span class="muted">(×2)</span>`,
		`data-rule="team.acme-status" data-gained>+4<`,
		`<span class="rule-title" data-rule="team.tf-destroy">No terraform destroy</span>`,
		`data-reason="` + replay.ReasonBadJSON + `">1<`,
		"a.jsonl:9",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(p, "more requests with other commands") {
		t.Error("the examples stand for every changed request, yet the page says some were not kept")
	}
	if got := changeOrder(p); len(got) != 2 || got[0] != "ask→allow:became-allow" || got[1] != "ask→deny:tightens" {
		t.Errorf("changes listed %v, want ask→allow (highlighted) then ask→deny", got)
	}
}

// The page lists the changes that became allow first and highlights them,
// whatever order it is handed, and escapes what the log holds.
func TestWriteHTMLOrderAndEscaping(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changes []replay.Change
		want    []string
	}{
		{"became allow moved first", []replay.Change{
			{From: "ask", To: "deny", Count: 9},
			{From: "deny", To: "ask", Count: 5},
			{From: "deny", To: "allow", Count: 1},
			{From: "ask", To: "ask", Count: 3},
			{From: "ask", To: "allow", Count: 2},
		}, []string{"deny→allow:became-allow", "ask→allow:became-allow", "ask→deny:tightens", "deny→ask:loosens", "ask→ask:rules-only"}},
		{"nothing became allow", []replay.Change{
			{From: "allow", To: "ask", Count: 1},
		}, []string{"allow→ask:tightens"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.changes {
				tc.changes[i].Examples = []replay.Example{{Command: "echo '<script>x</script>'", Count: 1, File: "l", Line: i + 1}}
			}
			p := page(t, &replay.Summary{Replayed: 20, Changed: 20, Changes: tc.changes}, "t")
			if got := changeOrder(p); strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("order %v, want %v", got, tc.want)
			}
			// One example of count 1 each: the rest of a change was not kept.
			wantMore := tc.changes[0].Count == 9 // 9 requests, one example
			if strings.Contains(p, "… and 8 more requests with other commands") != wantMore {
				t.Error("the requests past the examples are not counted")
			}
			if strings.Contains(p, "<script") || !strings.Contains(p, "&lt;script&gt;") {
				t.Error("a logged command is not escaped")
			}
			highlighted := strings.Contains(p, `class="badge"`) || strings.Contains(p, ` class="alert"`)
			if highlighted != strings.Contains(tc.want[0], "became-allow") {
				t.Errorf("became-allow highlight shown: %v", highlighted)
			}
		})
	}
}

func TestWriteHTMLNoChange(t *testing.T) {
	p := page(t, &replay.Summary{Lines: 3, Replayed: 3, Unchanged: 3}, "t")
	if !strings.Contains(p, `id="no-change"`) || strings.Contains(p, `id="changes"`) || strings.Contains(p, `id="skipped-lines"`) {
		t.Errorf("an empty replay's page:\n%s", p)
	}
}

// TestReplayPageInChromium: the page of the known replay loads in a real
// browser without console errors and shows the replay's figures.
func TestReplayPageInChromium(t *testing.T) {
	bin := testenv.Chromium(t)
	file := filepath.Join(t.TempDir(), "replay.html")
	if err := os.WriteFile(file, []byte(page(t, knownReplay(t), "rivumi policy replay")), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, errs := testenv.LoadPage(t, bin, file)
	if len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	for _, want := range []string{
		`<strong id="replayed">6</strong>`, `<strong id="lines">13</strong>`,
		`id="changed">5<`, `id="became-allow">4<`,
		`data-from="ask" data-to="allow">4<`, `data-from="ask" data-to="deny">1<`,
		`data-rule="team.tf-destroy" data-gained="">+1<`,
		`data-reason="` + replay.ReasonErased + `">1<`,
		`<span class="badge">became allow</span>`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the loaded page lacks %q", want)
		}
	}
	if got := changeOrder(dom); len(got) != 2 || got[0] != "ask→allow:became-allow" {
		t.Errorf("the loaded page lists the changes %v, want ask→allow first", got)
	}
	if n := len(regexp.MustCompile(`<rect [^>]*data-change=`).FindAllString(dom, -1)); n != 2 {
		t.Errorf("change chart: %d bars, want 2", n)
	}
}
