package tools

import (
	"strings"
	"testing"

	"github.com/rivumi/rivumi/harness"
)

const fakeToken = "ghp_0123456789abcdefghijABCDEFGHIJ012345"

// The agent sees the head (a stack trace's first lines) and the tail,
// with a marker saying how much was cut.
func TestClipKeepsHeadAndTail(t *testing.T) {
	s := "panic: boom\ngoroutine 1:\n" + strings.Repeat("frame line\n", 1000) + "exit status 2\n"
	got := clip(s, 200)
	if !strings.HasPrefix(got, "panic: boom\n") || !strings.HasSuffix(got, "exit status 2\n") || !strings.Contains(got, "bytes cut …]") {
		t.Errorf("clip = %q", got)
	}
	if len(got) > 200+len(cutMarker(int64(len(s)))) {
		t.Errorf("clip kept %d bytes", len(got))
	}
	if clip("short", 200) != "short" {
		t.Error("short text changed")
	}
}

// leaks reports whether out holds 8 or more consecutive characters of
// secret.
func leaks(out, secret string) bool {
	for i := 0; i+8 <= len(secret); i++ {
		if strings.Contains(out, secret[i:i+8]) {
			return true
		}
	}
	return false
}

// A secret at every position across the cut: of the agent's view (clip),
// of the harness's capture (agentOutput) and of the shell's streaming
// buffer (headTail), no fragment of 8 characters or more survives.
func TestCutNeverLeaksAFragment(t *testing.T) {
	const max = 64
	for pos := 0; pos < 3*max; pos++ {
		s := strings.Repeat("x ", pos/2) + "token " + fakeToken + " end " + strings.Repeat("y ", max)
		if out := clip(s, max); leaks(out, fakeToken) {
			t.Fatalf("clip at %d leaks: %q", pos, out)
		}
		b := &headTail{max: max}
		for i := 0; i < len(s); i += 7 {
			b.Write([]byte(s[i:min(i+7, len(s))]))
		}
		if out := b.String(); leaks(out, fakeToken) {
			t.Fatalf("headTail at %d leaks: %q", pos, out)
		}
		for h := 0; h <= len(s); h += 5 {
			o := harness.Output{Head: []byte(s[:min(h, len(s))]), Tail: []byte(s[min(h+30, len(s)):]), Dropped: int64(min(30, len(s)-min(h, len(s))))}
			if out := agentOutput(o, max); leaks(out, fakeToken) {
				t.Fatalf("agentOutput head %d leaks: %q", h, out)
			}
		}
	}
}

// FuzzAgentOutput: a secret anywhere, cut anywhere, never leaks 8
// characters; the result stays within the bound plus the markers.
func FuzzAgentOutput(f *testing.F) {
	f.Add("before ", " after", 10, 20, 64)
	f.Add("", "", 0, 0, 16)
	f.Add("a\nb\n", "\nc", 3, 50, 40)
	f.Fuzz(func(t *testing.T, pre, post string, headLen, dropped, max int) {
		if max < 8 || max > 4096 || headLen < 0 || dropped < 0 {
			return
		}
		s := pre + " " + fakeToken + " " + post
		h := min(headLen, len(s))
		d := min(dropped, len(s)-h)
		o := harness.Output{Head: []byte(s[:h]), Tail: []byte(s[h+d:]), Dropped: int64(d)}
		if out := agentOutput(o, max); leaks(out, fakeToken) {
			t.Fatalf("leak: %q", out)
		}
		if out := clip(s, max); leaks(out, fakeToken) {
			t.Fatalf("clip leak: %q", out)
		}
	})
}
