package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/lazyre"
	"github.com/rivumi/rivumi/report"
	"github.com/rivumi/rivumi/rules"
)

// plainWord is a word that reads as a subcommand (deploy, status), not an
// option, a path or a value.
var plainWord = lazyre.New(`^[a-z][a-z0-9-]*$`)

// suggestFor returns the prefix and the rule `audit report` offers for an
// uncovered command: the engine's, narrowed to the command's second word
// when the engine's names only the program and that word reads as a
// subcommand — a rule drawn from `acmectl status` must not allow
// `acmectl deploy` too.
func suggestFor(ctx context.Context, e *engine.Engine, opts []engine.EvalOption, command string) (string, string) {
	for _, r := range e.EvaluateText(ctx, command, opts...).Reasons {
		if r.Rule != engine.RuleFallback || r.Suggest == "" {
			continue
		}
		prefix := r.Prefix
		if f := strings.Fields(command); len(prefix) == 1 && len(f) > 1 && f[0] == prefix[0] && plainWord().MatchString(f[1]) {
			prefix = []string{prefix[0], f[1]}
			return strings.Join(prefix, " "), engine.SuggestRule(prefix, command)
		}
		return strings.Join(prefix, " "), r.Suggest
	}
	return "", ""
}

// checkSuggestions keeps only the suggested rules that load: all of them
// are compiled with the policy in force as one team file (their match
// examples must hit them, as `policy check` demands); a rule that fails
// loses its text (the report then shows the commands without a rule to
// paste). It returns how many were dropped.
func checkSuggestions(ctx context.Context, base []engine.Option, us []report.Uncovered) int {
	dropped := 0
	for range 2 { // a second pass when the first dropped some
		var all []rules.YAMLRule
		index := map[string]int{}
		for i, u := range us {
			if u.Rule == "" {
				continue
			}
			rs, err := rules.ParseYAMLRules("suggestion", []byte("rules:\n"+u.Rule+"\n"))
			if err != nil || len(rs) != 1 {
				us[i].Rule = ""
				dropped++
				continue
			}
			all = append(all, rs[0])
			index[rs[0].ID] = i
		}
		if len(all) == 0 {
			return dropped
		}
		_, err := engine.New(ctx, append(base, engine.YAMLRules(all...))...)
		var pe *engine.PolicyError
		if err == nil {
			return dropped
		}
		if !errors.As(err, &pe) {
			break
		}
		bad := 0
		for id, i := range index {
			for _, p := range pe.Problems {
				if strings.Contains(p, "rule "+id+":") {
					us[i].Rule = ""
					dropped++
					bad++
					break
				}
			}
		}
		if bad == 0 {
			break
		}
	}
	// Still not loading, for a reason no rule is named in: offer none.
	for i := range us {
		if us[i].Rule != "" {
			us[i].Rule = ""
			dropped++
		}
	}
	return dropped
}
