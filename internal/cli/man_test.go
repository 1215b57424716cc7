package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestManPages: `rivumi man` writes rivumi(1) and a page per command,
// each made of the command's --help; groff reads every page without a
// warning (when it is installed).
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	var out, errb strings.Builder
	if code := Main(context.Background(), []string{"man", "--dir", dir}, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	paths := []string{"completion bash", "completion zsh"}
	for p := range commands {
		paths = append(paths, p)
	}
	for _, p := range paths {
		name := "rivumi-" + strings.ReplaceAll(p, " ", "-") + ".1"
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		page := string(b)
		for _, want := range []string{".SH NAME\n" + roffText("rivumi-"+strings.ReplaceAll(p, " ", "-")), ".SH SYNOPSIS\n.nf\nrivumi " + roffText(p), ".SH DESCRIPTION\n"} {
			if !strings.Contains(page, want) {
				t.Errorf("%s: no %q in\n%s", name, want, page)
			}
		}
	}
	eval, _ := os.ReadFile(filepath.Join(dir, "rivumi-policy-eval.1"))
	for _, want := range []string{".SH OPTIONS\n", "\\fB\\-\\-batch\\fR \\fIFILE\\fR", ".SH EXAMPLES\n", "rivumi policy eval \\-\\-batch commands.jsonl",
		"\\fB\\-\\-format\\fR \\fIstring\\fR\noutput format: text or json (default text)"} {
		if !strings.Contains(string(eval), want) {
			t.Errorf("rivumi-policy-eval.1: no %q", want)
		}
	}
	main, _ := os.ReadFile(filepath.Join(dir, "rivumi.1"))
	for _, want := range []string{".SH EXIT STATUS", "124   `run`: the child was killed after its timeout", ".BR rivumi\\-policy\\-eval (1)"} {
		if !strings.Contains(string(main), want) {
			t.Errorf("rivumi.1: no %q", want)
		}
	}
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff is not installed: the pages' syntax is not checked")
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	if len(pages) != len(commands)+4+1 { // cobra's completion bash, fish, powershell, zsh
		t.Errorf("%d pages for %d commands", len(pages), len(commands))
	}
	for _, p := range pages {
		if w, err := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z", p).CombinedOutput(); err != nil || len(w) > 0 {
			t.Errorf("groff %s: %v\n%s", filepath.Base(p), err, w)
		}
	}
}

func TestRoffText(t *testing.T) {
	for in, want := range map[string]string{
		`--no-fs`:  `\-\-no\-fs`,
		`a\b`:      `a\eb`,
		".hidden":  `\&.hidden`,
		"'quoted'": `\&'quoted'`,
		"a … b":    `a \[u2026] b`,
	} {
		if got := roffText(in); got != want {
			t.Errorf("roffText(%q) = %q, want %q", in, got, want)
		}
	}
}
