package engine

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/rules"
)

// TestVerdictCacheIsExact grades a sequence of commands whose verdicts
// differ only by an evaluation option, on an engine with caches and on one
// without: every verdict must be the same, in any order.
func TestVerdictCacheIsExact(t *testing.T) {
	ctx := context.Background()
	cached, err := New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := New(ctx, CacheSize(0))
	if err != nil {
		t.Fatal(err)
	}
	push := []Grant{{Prefix: []string{"npm", "install"}, Rules: []string{"packages.install"}}}
	steps := []struct {
		text string
		opts []EvalOption
	}{
		{"npm install", nil},
		{"npm install", []EvalOption{Grants(push)}},
		{"npm install", nil},
		{"cat id_rsa", []EvalOption{Home("/home/dev"), Cwd("/home/dev/.ssh")}},
		{"cat id_rsa", []EvalOption{Home("/home/dev"), Cwd("/home/dev/proj"), Workspace("/home/dev/proj")}},
		{"rm -rf build", []EvalOption{Workspace("/w"), Cwd("/w")}},
		{"rm -rf build", []EvalOption{Workspace("/w"), Cwd("/")}},
		{"cat ~/.aws/credentials", []EvalOption{Home("/home/dev")}},
		{"cat ~/.aws/credentials", []EvalOption{Home("/root")}},
		{"ls", []EvalOption{Shell("zsh")}},
		{"noglob rm -rf /", []EvalOption{Shell("zsh")}},
		{"noglob rm -rf /", []EvalOption{Shell("bash")}},
	}
	for round := 0; round < 2; round++ {
		for _, s := range steps {
			got := cached.EvaluateText(ctx, s.text, s.opts...)
			want := plain.EvaluateText(ctx, s.text, s.opts...)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round %d %q: cached %s %v, uncached %s %v", round, s.text, got.Decision, got.Reasons, want.Decision, want.Reasons)
			}
		}
	}
}

// TestVerdictCacheKeepsNoFailure: a verdict that failed (here, a cancelled
// context) is not remembered, and a caller changing its reasons changes
// nobody else's.
func TestVerdictCacheKeepsNoFailure(t *testing.T) {
	e, err := New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if v := e.EvaluateText(cancelled, "ls -la"); v.Decision != Deny || v.Reasons[0].Rule != RuleEvalError {
		t.Fatalf("cancelled evaluation: %s %v, want a deny by %s", v.Decision, v.Reasons, RuleEvalError)
	}
	v := e.EvaluateText(context.Background(), "ls -la")
	if v.Decision != Allow {
		t.Fatalf("after a cancelled evaluation: %s %v, want allow", v.Decision, v.Reasons)
	}
	v.Reasons[0].Rule = "changed"
	if again := e.EvaluateText(context.Background(), "ls -la"); again.Reasons[0].Rule == "changed" {
		t.Fatal("a caller's change to its verdict reached the cache")
	}
	// Remembered now: a done context still denies.
	if v := e.EvaluateText(cancelled, "ls -la"); v.Decision != Deny || v.Reasons[0].Rule != RuleEvalError {
		t.Fatalf("cancelled evaluation of a remembered command: %s %v, want a deny by %s", v.Decision, v.Reasons, RuleEvalError)
	}
}

func TestVerdictKeyIsUnambiguous(t *testing.T) {
	keys := map[string]string{}
	for name, k := range map[string]string{
		"text a, cwd bc":     verdictKey("a", &evalConfig{cwd: "bc"}),
		"text ab, cwd c":     verdictKey("ab", &evalConfig{cwd: "c"}),
		"text a1:b":          verdictKey("a1:b", &evalConfig{}),
		"text a, shell b":    verdictKey("a", &evalConfig{shell: "b"}),
		"grant [x y]":        verdictKey("t", &evalConfig{grants: []Grant{{Prefix: []string{"x", "y"}}}}),
		"grant [xy]":         verdictKey("t", &evalConfig{grants: []Grant{{Prefix: []string{"xy"}}}}),
		"grant [x] rule y":   verdictKey("t", &evalConfig{grants: []Grant{{Prefix: []string{"x"}, Rules: []string{"y"}}}}),
		"grants [x], [] y":   verdictKey("t", &evalConfig{grants: []Grant{{Prefix: []string{"x"}}, {Rules: []string{"y"}}}}),
		"workspace w":        verdictKey("t", &evalConfig{workspace: "w"}),
		"home w":             verdictKey("t", &evalConfig{home: "w"}),
		"no options, text t": verdictKey("t", &evalConfig{}),
	} {
		if other, dup := keys[k]; dup {
			t.Errorf("%s and %s share the key %q", name, other, k)
		}
		keys[k] = name
	}
}

// TestCachesAreBounded: long commands are not kept, and the verdict cache
// starts over before its keys pass maxCacheBytes.
func TestCachesAreBounded(t *testing.T) {
	e, err := New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	long := "echo " + strings.Repeat("x", maxCachedText)
	if v := e.EvaluateText(context.Background(), long); v.Decision != Allow {
		t.Fatalf("long echo: %s %v", v.Decision, v.Reasons)
	}
	if n, _ := e.verdicts.size(); n != 0 {
		t.Errorf("a %d-byte command was cached (%d verdicts)", len(long), n)
	}
	if n := e.cache.n; n != 0 {
		t.Errorf("a segment of a %d-byte command was cached (%d segments)", len(long), n)
	}
	c := newVerdictCache(1 << 20)
	key := strings.Repeat("k", maxCachedText)
	for i := range maxCacheBytes/len(key) + 10 {
		c.put(fmt.Sprint(i)+key, Verdict{})
		if _, b := c.size(); b > maxCacheBytes {
			t.Fatalf("after %d puts the keys hold %d bytes, over %d", i+1, b, maxCacheBytes)
		}
	}
	small := newVerdictCache(64)
	for i := range 10_000 {
		small.put(fmt.Sprint(i), Verdict{})
		if n, _ := small.size(); n > 64+verdictShards {
			t.Fatalf("after %d puts a cache of 64 holds %d verdicts", i+1, n)
		}
	}
	small.put("k", Verdict{Decision: Ask, Reasons: []Reason{{Rule: "r"}}})
	v, ok := small.get("k")
	if !ok || v.Decision != Ask || len(v.Reasons) != 1 {
		t.Fatalf("get after put = %v, %v", v, ok)
	}
	v.Reasons[0].Rule = "changed"
	if v, _ := small.get("k"); v.Reasons[0].Rule != "r" {
		t.Errorf("a caller's change reached the cache: %q", v.Reasons[0].Rule)
	}
}

// size counts the verdicts the cache holds and the bytes of their keys.
func (c *verdictCache) size() (n, bytes int) {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		n, bytes = n+len(sh.m), bytes+sh.bytes
		sh.mu.Unlock()
	}
	return n, bytes
}

// TestAllowAlwaysEvaluatedForTeamRules: whatever a team adds (Rego packs,
// YAML rules, switches) makes every segment evaluate the allow layer, so a
// failing rule of theirs denies; the embedded packs alone skip it when a
// stricter layer decided.
func TestAllowAlwaysEvaluatedForTeamRules(t *testing.T) {
	rs, err := rules.ParseYAMLRules("team.yaml", []byte("rules:\n  - id: team.ls\n    pattern: [ls]\n    decision: allow\n    justification: j\n    match: [\"ls\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		opts []Option
		want bool
	}{
		{"embedded packs", nil, false},
		{"YAML rules", []Option{YAMLRules(rs...)}, true},
		{"user pack", []Option{UserModule("u.rego", "package rivumi.user\n\nx := 1\n")}, true},
	} {
		e, err := New(context.Background(), tt.opts...)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		rp, err := e.c.rego()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if rp.hits.alwaysAllow != tt.want {
			t.Errorf("%s: alwaysAllow %v, want %v", tt.name, rp.hits.alwaysAllow, tt.want)
		}
	}
}
