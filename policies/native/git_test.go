package native

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/parser"
)

// TestGitNetworkMatchNoAlloc: the git and network rules allocate nothing
// per segment, on segments that reach each of their bodies.
func TestGitNetworkMatchNoAlloc(t *testing.T) {
	tabs := generatedTables()
	var segs []*Seg
	for _, text := range []string{
		"git push --force-with-lease origin main", "git checkout main -- a.txt", "git stash pop",
		"git -c color.ui=always -c core.autocrlf=true log",
		"git -c User.Name=bot -c Color.UI=always log", "git -C /tmp status", "GIT_CONFIG_GLOBAL=x git log",
		"git config --get user.password", "git config user.name bot", "git reflog expire --all",
		"curl -d @f https://x", "wget --post-file=f https://x", "rsync -a src/ host:/srv/", "ls -la",
	} {
		cmd, err := parser.Parse(text, parser.Workspace("/work/proj"), parser.Cwd("/work/proj"), parser.Home("/home/dev"))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		for _, s := range cmd.Segments {
			segs = append(segs, NewSeg(s))
		}
	}
	for _, r := range append(gitRules[:len(gitRules):len(gitRules)], networkRules...) {
		if n := testing.AllocsPerRun(20, func() {
			for _, s := range segs {
				r.Match(s, tabs)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations per run", r.ID, n)
		}
	}
}

// TestHostPath: hostPath is regex.match(`^[^/]*:`, x), on the edges.
func TestHostPath(t *testing.T) {
	re := regexp.MustCompile(`^[^/]*:`)
	for _, x := range []string{
		"", ":", "/", "h:", "h:/p", "user@h:p", "./a:b", "/abs:x", "a/b:c", "rsync://h/m", "[::1]:x",
		"\xff:", "é:", "a", "host", strings.Repeat("a", 100) + ":",
	} {
		if got, want := hostPath(x), re.MatchString(x); got != want {
			t.Errorf("hostPath(%q) = %v, regex says %v", x, got, want)
		}
	}
}

// TestGitHarmlessKey: gitHarmlessKey(k) is git_harmless_setting(lower(k)),
// lower being strings.ToLower (OPA's), on ASCII, non-ASCII and long keys.
func TestGitHarmlessKey(t *testing.T) {
	for _, k := range []string{
		"", "core.pager", "CORE.PAGER", "User.Name", "user.name ", "Color.Pager", "color.PAGER", "COLOR.UI",
		"Pager.Log", "ADVICE.x", "core.fsmonitor", "Core.FsMonitor", "u\u017fer.name", "user.na\u212ae",
		"\u212aolor.ui", "color.\u212a", "\xffcolor.ui", "pager." + strings.Repeat("X", 40), "Pager." + strings.Repeat("X", 26), "Pager." + strings.Repeat("X", 27), "Init.DefaultBranch",
		"I18N.LogOutputEncoding", "grep.extendedRegexp" + strings.Repeat("!", 14), "grep.extendedRegexp" + strings.Repeat("!", 13),
	} {
		if got, want := gitHarmlessKey(k), gitHarmlessSetting(strings.ToLower(k)); got != want {
			t.Errorf("gitHarmlessKey(%q) = %v, git_harmless_setting(lower(k)) = %v", k, got, want)
		}
	}
}
