package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// initBudget bounds the bytes that rivumi's own packages allocate while
// they initialise. Every process pays for it, whatever its subcommand: a
// table, template or pattern built at initialisation belongs behind a
// sync.OnceValue (or lazyre.New) instead. About 120 KiB when this was
// written (docs/performance.md, "Where a cold call's time goes"); the budget
// leaves room for small tables, not for a registry built eagerly again
// (the program registry alone is 70 KiB, the option specs 280 KiB).
const initBudget = 192 << 10

// TestInitAllocations runs this test binary, which links every package
// the rivumi command does, with GODEBUG=inittrace=1 and adds up the bytes
// the module's packages allocate in their init. Bytes, not time: the
// count depends only on the code, so the test cannot be flaky.
func TestInitAllocations(t *testing.T) {
	if os.Getenv("RIVUMI_INITTRACE_CHILD") != "" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "RIVUMI_INITTRACE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	const module = "github.com/rivumi/rivumi/"
	type pkg struct {
		path          string
		bytes, allocs int
	}
	var pkgs []pkg
	total := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		// init PATH @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		if !strings.HasPrefix(f[1], module) || strings.HasPrefix(f[1], module+"cmd/rivumi") {
			continue // the test's own package holds test code
		}
		var p pkg
		p.path = strings.TrimPrefix(f[1], module)
		if _, err := fmt.Sscan(f[7], &p.bytes); err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		fmt.Sscan(f[9], &p.allocs)
		pkgs = append(pkgs, p)
		total += p.bytes
	}
	if len(pkgs) < 10 {
		t.Fatalf("inittrace listed %d of the module's packages (want the parser, engine, cli …):\n%s", len(pkgs), out)
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].bytes > pkgs[j].bytes })
	var b strings.Builder
	for _, p := range pkgs {
		if p.bytes > 0 {
			fmt.Fprintf(&b, "\n\t%-24s %7d bytes %5d allocs", p.path, p.bytes, p.allocs)
		}
	}
	t.Logf("the module's packages allocate %d bytes at initialisation:%s", total, b.String())
	if total > initBudget {
		t.Errorf("the module's packages allocate %d bytes at initialisation, over the budget of %d: move tables, templates and patterns to first use%s", total, initBudget, b.String())
	}
}
