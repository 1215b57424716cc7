package adversarial_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/verdict"
)

// meta is a METADATA block declaring a user rule id.
func meta(id string) string {
	return fmt.Sprintf("# METADATA\n# title: %s\n# custom:\n#   id: %s\n#   justification: adversarial test rule\n", id, id)
}

// TestUserPackRuntimeErrors loads user packs that compile but fail while
// evaluating, on some inputs only (so no compile-time check can see it).
// Grading a command that triggers the failure must deny and name the
// error; it must never allow, and never crash.
func TestUserPackRuntimeErrors(t *testing.T) {
	packs := []struct {
		name    string
		src     string
		trigger string // a command that makes the pack fail
		want    []string
	}{
		{
			name: "conflicting complete rules",
			src: "package rivumi.user\n\n" + meta("user.conflict") +
				"ask contains {\"id\": \"user.conflict\"} if level > 0\n\n" +
				"level := 1 if input.segment.program == \"ls\"\n\n" +
				"level := 2 if count(input.segment.argv) > 1\n",
			trigger: "ls -la",
			want:    []string{"conflict", "multiple"},
		},
		{
			name: "type error from data (to_number of a flag)",
			src: "package rivumi.user\n\n" + meta("user.tonumber") +
				"ask contains {\"id\": \"user.tonumber\"} if to_number(input.segment.argv[1]) > 3\n",
			trigger: "ls -la",
			want:    []string{"to_number"},
		},
		{
			name: "arithmetic on a string",
			src: "package rivumi.user\n\n" + meta("user.plus") +
				"deny contains {\"id\": \"user.plus\"} if input.segment.argv[0] + 1 > 0\n",
			trigger: "ls",
			want:    []string{"plus", "number"},
		},
		{
			name: "division by zero",
			src: "package rivumi.user\n\n" + meta("user.div") +
				"ask contains {\"id\": \"user.div\"} if 10 / (count(input.segment.argv) - 2) > 1\n",
			trigger: "ls -la",
			want:    []string{"divide by zero", "div"},
		},
		{
			name: "an allow rule that fails",
			src: "package rivumi.user\n\n" + meta("user.allow-num") +
				"allow contains {\"id\": \"user.allow-num\"} if to_number(input.segment.program) >= 0\n",
			trigger: "rm -rf ./build",
			want:    []string{"to_number"},
		},
		{
			name: "a hit without METADATA",
			src: "package rivumi.user\n\n" +
				"ask contains {\"id\": \"user.undeclared\"} if input.segment.program == \"ls\"\n",
			trigger: "ls",
			want:    []string{"user.undeclared"},
		},
		{
			name: "a hit that is not an object",
			src: "package rivumi.user\n\n" + meta("user.string") +
				"ask contains \"user.string\" if input.segment.program == \"ls\"\n",
			trigger: "ls",
			want:    []string{"user.string", "id"},
		},
		{
			name: "sum over strings",
			src: "package rivumi.user\n\n" + meta("user.sum") +
				"ask contains {\"id\": \"user.sum\"} if sum(input.segment.argv) > 0\n",
			trigger: "ls -la",
			want:    []string{"sum"},
		},
	}
	ctx := context.Background()
	for _, p := range packs {
		e, err := engine.New(ctx, engine.UserModule("x.rego", p.src))
		if err != nil {
			// Refusing the pack at load is failing closed too.
			t.Logf("%s: refused at load: %v", p.name, firstLine(err.Error()))
			continue
		}
		v := e.EvaluateText(ctx, p.trigger, evalOpts("bash")...)
		text := fmt.Sprint(v.Reasons)
		t.Logf("%s: %q → %s %s", p.name, p.trigger, v.Decision, firstLine(text))
		if v.Decision == verdict.Allow {
			t.Errorf("%s: %q allowed despite the pack's error: %s", p.name, p.trigger, text)
			continue
		}
		named := false
		for _, w := range p.want {
			named = named || strings.Contains(strings.ToLower(text), strings.ToLower(w))
		}
		if p.want[0] != "" && (v.Decision != verdict.Deny || !named) {
			t.Errorf("%s: %q → %s %s; want deny naming the error (%q)", p.name, p.trigger, v.Decision, text, p.want)
		}
		// A floor command still denies, whatever the pack does.
		if v := e.EvaluateText(ctx, "rm -rf /", evalOpts("bash")...); v.Decision != verdict.Deny {
			t.Errorf("%s: rm -rf / → %s", p.name, v.Decision)
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}
