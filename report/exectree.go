package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rivumi/rivumi/internal/shquote"
)

// Exec is one exec the gate decided in a run (audit.Exec as logged): the
// process, its parent, its argv (redacted by the writer), and the rule
// that refused it ("" when it ran).
type Exec struct {
	PID     int      `json:"pid"`
	PPID    int      `json:"ppid"`
	Argv    []string `json:"argv"`
	Allowed bool     `json:"allowed"`
	Rule    string   `json:"rule"`
}

// GatedRun is a run of the exec gate (`rivumi run --gate`, the workspace
// tools): the command approved, and the tree of the execs it made.
type GatedRun struct {
	Time    time.Time
	Source  string
	Command string
	Tree    []TreeLine
	Execs   int // the execs decided
	Refused int // of which refused
}

// TreeLine is one node of an exec tree in display order: its depth below
// the run's first exec, and how many identical attempts it stands for (a
// shell that tries each PATH directory makes one exec per directory).
type TreeLine struct {
	Depth    int
	Exec     Exec
	Attempts int
}

// GateSummary counts the gated runs of the logs and keeps the trees of the
// most recent runs that had an exec refused.
type GateSummary struct {
	Runs, Execs, Refused int
	// Trees are the most recent runs with a refusal (Options.Top at most),
	// newest first.
	Trees []GatedRun
}

// summarizeGate fills a GateSummary from the gated runs.
func summarizeGate(runs []GatedRun, top int) GateSummary {
	var g GateSummary
	for _, r := range runs {
		g.Runs++
		g.Execs += r.Execs
		g.Refused += r.Refused
		if r.Refused > 0 {
			g.Trees = append(g.Trees, r)
		}
	}
	sort.SliceStable(g.Trees, func(i, j int) bool { return g.Trees[i].Time.After(g.Trees[j].Time) })
	if len(g.Trees) > top {
		g.Trees = g.Trees[:top]
	}
	return g
}

// gatedRun builds the tree of a run's execs, in the order they were
// decided. A record's parent is the latest earlier record of the same
// process (it exec'd again: env → node) or else of its parent process;
// a record with neither is a root. Consecutive identical attempts of one
// process fold into one line.
func gatedRun(e Event) GatedRun {
	execs := e.Execs
	r := GatedRun{Time: e.Time, Source: e.Source, Command: e.Command, Execs: len(execs)}
	type node struct {
		line     TreeLine
		children []int
	}
	var nodes []node
	var roots []int
	last := map[int]int{} // pid → index of its latest node
	for _, x := range execs {
		if !x.Allowed {
			r.Refused++
		}
		if i, ok := last[x.PID]; ok {
			n := &nodes[i]
			if n.line.Exec.Allowed == x.Allowed && n.line.Exec.Rule == x.Rule && slices.Equal(n.line.Exec.Argv, x.Argv) {
				n.line.Attempts++
				continue
			}
		}
		idx := len(nodes)
		nodes = append(nodes, node{line: TreeLine{Exec: x, Attempts: 1}})
		parent, ok := last[x.PID]
		if !ok {
			parent, ok = last[x.PPID]
		}
		if ok {
			nodes[parent].children = append(nodes[parent].children, idx)
		} else {
			roots = append(roots, idx)
		}
		last[x.PID] = idx
	}
	var walk func(i, depth int)
	walk = func(i, depth int) {
		l := nodes[i].line
		l.Depth = depth
		r.Tree = append(r.Tree, l)
		for _, c := range nodes[i].children {
			walk(c, depth+1)
		}
	}
	for _, i := range roots {
		walk(i, 0)
	}
	return r
}

// argvText shows an argv as a shell would read it back (control
// characters quoted, so a line cannot pretend to be another).
func argvText(argv []string) string {
	ws := make([]string, len(argv))
	for i, a := range argv {
		ws[i] = shquote.Word(a)
	}
	return strings.Join(ws, " ")
}

// writeGate renders the gate's section for a terminal.
func writeGate(b *strings.Builder, g GateSummary) {
	if g.Runs == 0 {
		return
	}
	fmt.Fprintf(b, "\nExec gate: %d gated runs, %d execs, %d refused\n", g.Runs, g.Execs, g.Refused)
	for _, r := range g.Trees {
		fmt.Fprintf(b, "  %s  %s  %s  (%d of %d execs refused)\n", stamp(r.Time), r.Source, r.Command, r.Refused, r.Execs)
		for _, l := range r.Tree {
			line := strings.Repeat("  ", l.Depth) + argvText(l.Exec.Argv)
			if !l.Exec.Allowed {
				line += "  ✗ " + l.Exec.Rule
			}
			if l.Attempts > 1 {
				line += fmt.Sprintf("  (×%d)", l.Attempts)
			}
			fmt.Fprintf(b, "      %s\n", line)
		}
	}
}
