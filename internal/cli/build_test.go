package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBuildRevisionIndependentOfPath: the same pack built from different
// places (another checkout, another spelling of the path) has the same
// policy hash, which is the bundle's revision.
func TestBuildRevisionIndependentOfPath(t *testing.T) {
	pack := "package rivumi.user\n\n# METADATA\n# title: No cowsay\n# custom:\n#   id: team.no-cowsay\n#   justification: Not at work.\ndeny contains {\"id\": \"team.no-cowsay\"} if input.segment.program == \"cowsay\"\n"
	tmp := t.TempDir()
	var dirs []string
	for _, d := range []string{"a/repo", "b/c/checkout"} { // two checkouts of one repository
		root := filepath.Join(tmp, d)
		os.MkdirAll(filepath.Join(root, ".git"), 0o755)
		os.MkdirAll(filepath.Join(root, "policy"), 0o755)
		os.WriteFile(filepath.Join(root, "policy", "team.rego"), []byte(pack), 0o644)
		dirs = append(dirs, filepath.Join(root, "policy"), filepath.Join(root, "policy")+"/./", filepath.Join(root, "x", "..", "policy"))
	}
	for _, d := range []string{"p/team", "q/r/team"} { // outside a repository
		os.MkdirAll(filepath.Join(tmp, d), 0o755)
		os.WriteFile(filepath.Join(tmp, d, "team.rego"), []byte(pack), 0o644)
	}
	hashOf := func(dir string) string {
		t.Helper()
		var out, errb bytes.Buffer
		code := Main(context.Background(), []string{"policy", "build", "-o", filepath.Join(tmp, "b.tar.gz"), "--policy", dir},
			Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
		m := regexp.MustCompile(`policy ([0-9a-f]{16})`).FindStringSubmatch(errb.String())
		if code != 0 || m == nil {
			t.Fatalf("build --policy %s: exit %d\n%s", dir, code, errb.String())
		}
		return m[1]
	}
	want := hashOf(dirs[0])
	for _, d := range dirs[1:] {
		if got := hashOf(d); got != want {
			t.Errorf("--policy %s: revision %s, want %s", d, got, want)
		}
	}
	outside := hashOf(filepath.Join(tmp, "p/team"))
	if got := hashOf(filepath.Join(tmp, "q/r/team")); got != outside {
		t.Errorf("outside a repository: revision %s, want %s", got, outside)
	}
	// A changed pack changes the revision.
	os.WriteFile(filepath.Join(tmp, "p/team/team.rego"), []byte(strings.Replace(pack, "cowsay\"\n", "cowsay\"\n# changed\n", 1)), 0o644)
	if hashOf(filepath.Join(tmp, "p/team")) == outside {
		t.Error("a changed pack kept its revision")
	}
}
