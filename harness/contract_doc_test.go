package harness_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/harness"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the contract table in docs/platforms.md")

const (
	contractBegin = "<!-- contract:begin (generated from harness.Contract by TestContractDoc; go test ./harness -run TestContractDoc -update-docs) -->"
	contractEnd   = "<!-- contract:end -->"
)

// renderContract renders [harness.Contract] as the docs' Markdown table.
func renderContract() string {
	var b strings.Builder
	b.WriteString("Contract " + harness.ContractVersion + ".\n\n")
	b.WriteString("| backend | read | write | exec | network | privilege | reaping | verified |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, c := range harness.Contract {
		b.WriteString("| " + strings.Join([]string{"`" + string(c.Backend) + "`", cell(c.Read), cell(c.Write), cell(c.Exec),
			cell(c.Network), cell(c.Privilege), cell(c.Reaping), cell(c.Verified)}, " | ") + " |\n")
	}
	return b.String()
}

// docs/platforms.md shows the contract as the code states it.
func TestContractDoc(t *testing.T) {
	const path = "../docs/platforms.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, contractBegin), strings.Index(doc, contractEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q … %q block", path, contractBegin, contractEnd)
	}
	want := doc[:i] + contractBegin + "\n" + renderContract() + doc[j:]
	if want == doc {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's contract table differs from harness.Contract: run go test ./harness -run TestContractDoc -update-docs", path)
}

// Every backend has exactly one row, and no row leaves a field empty.
func TestContractComplete(t *testing.T) {
	seen := map[harness.Sandbox]bool{}
	for _, c := range harness.Contract {
		if seen[c.Backend] {
			t.Errorf("%s twice", c.Backend)
		}
		seen[c.Backend] = true
		for _, f := range []string{c.Read, c.Write, c.Exec, c.Network, c.Privilege, c.Reaping, c.Verified} {
			if strings.TrimSpace(f) == "" {
				t.Errorf("%s has an empty field", c.Backend)
			}
		}
	}
	for _, b := range []harness.Sandbox{harness.SandboxBwrap, harness.SandboxLandlock, harness.SandboxSeatbelt, harness.SandboxNone} {
		if !seen[b] {
			t.Errorf("no row for %s", b)
		}
	}
}
