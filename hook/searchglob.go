package hook

import (
	"regexp"
	"strings"

	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/verdict"
)

// Search tools (Claude Code's Grep, Gemini's grep_search, opencode's,
// pi's, Copilot's and Qwen's grep) take a directory and a file glob: the
// files below the directory that the glob selects are read. The glob's
// dialect differs per agent (ripgrep's --glob, git pathspecs, JavaScript
// glob libraries), so rivumi reads it permissively: braces expanded, `*`
// and `?` match dot files too, a pattern without a slash matches a base
// name at any depth, `**` any run of directories. Selecting more files
// than the agent does only makes the verdict stricter.

// maxBraceAlternatives bounds a glob's brace expansion.
const maxBraceAlternatives = 64

// expandBraces expands {a,b} alternatives (nested too); ok is false past
// maxBraceAlternatives or for unbalanced braces.
func expandBraces(glob string) ([]string, bool) {
	open := -1
	depth := 0
	for i := 0; i < len(glob); i++ {
		switch glob[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				return nil, false
			}
			depth--
			if depth > 0 {
				continue
			}
			var alts []string
			d, start := 0, open+1
			for j := open + 1; j < i; j++ {
				switch glob[j] {
				case '\\':
					j++
				case '{':
					d++
				case '}':
					d--
				case ',':
					if d == 0 {
						alts = append(alts, glob[start:j])
						start = j + 1
					}
				}
			}
			alts = append(alts, glob[start:i])
			var out []string
			for _, a := range alts {
				rest, ok := expandBraces(glob[:open] + a + glob[i+1:])
				if !ok {
					return nil, false
				}
				out = append(out, rest...)
				if len(out) > maxBraceAlternatives {
					return nil, false
				}
			}
			return out, true
		}
	}
	if depth != 0 {
		return nil, false
	}
	return []string{glob}, true
}

// globSelector returns whether a file (its slash path relative to the
// searched directory) is selected by glob, read permissively (above). A
// glob rivumi cannot read selects every file.
func globSelector(glob string) func(rel string) bool {
	alts, ok := expandBraces(glob)
	if !ok {
		return nil
	}
	var res []*regexp.Regexp
	for _, a := range alts {
		a = strings.TrimPrefix(a, "./")
		anchored := strings.Contains(strings.TrimSuffix(a, "/"), "/")
		re, err := regexp.Compile(globRegexp(strings.TrimPrefix(a, "/"), anchored))
		if err != nil {
			return nil
		}
		res = append(res, re)
	}
	return func(rel string) bool {
		for _, re := range res {
			if re.MatchString(rel) {
				return true
			}
		}
		return false
	}
}

// globRegexp translates one brace-free glob; unanchored, it may match the
// end of the path after any directory.
func globRegexp(g string, anchored bool) string {
	var b strings.Builder
	b.WriteString("^")
	if !anchored {
		b.WriteString("(?:.*/)?")
	}
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case c == '*' && strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case c == '*' && strings.HasPrefix(g[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(g[i+1:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := g[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		case c == '\\' && i+1 < len(g):
			i++
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	// A pattern naming a directory selects everything below it.
	b.WriteString("(?:/.*)?$")
	return b.String()
}

// RuleSearchUnsearchable: a search over a tree too large to look at for
// secrets.
const RuleSearchUnsearchable = "hook.search-unsearchable"

// searchSecrets adds to c.paths the secret files on disk that a search of
// dirs selecting glob reads (parser.SecretsBelow), and returns an ask for
// each tree it could not look at completely. Not on Windows.
func searchSecrets(cfg *Config, c *call, dirs []string, glob, workspace string) []verdict.Reason {
	if cfg.GOOS == "windows" || workspace == "" {
		return nil
	}
	var sel func(string) bool
	if glob != "" {
		sel = globSelector(glob)
	}
	opts := []parser.Option{parser.Workspace(workspace)}
	if cfg.Home != "" {
		opts = append(opts, parser.Home(cfg.Home))
	}
	var problems []verdict.Reason
	for _, d := range dirs {
		found, cut := parser.SecretsBelow(d, sel, opts...)
		c.paths = append(c.paths, found...)
		if cut != "" {
			problems = append(problems, verdict.Reason{Rule: RuleSearchUnsearchable, Decision: verdict.Ask, Segment: -1,
				Text: "the search reads a tree rivumi could not look at completely for secrets: " + cut})
		}
	}
	return problems
}
