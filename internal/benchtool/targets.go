package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rivumi/rivumi/internal/benchdata"
)

// cmdTargets prints issue 20's targets: each figure with its ratio to the
// floor or peer it is measured against, from the results of `benchtool
// ab` (ids t20.*), `benchtool load` (t20.serve) and the Go benchmarks.
func cmdTargets(args []string) error {
	fs := flag.NewFlagSet("targets", flag.ExitOnError)
	gb := fs.String("gobench", "", "go test -bench output with BenchmarkEvaluateCold and BenchmarkParseMix")
	hb := fs.String("harness", "", "go test -bench output of ./harness with BenchmarkGate1000Execs and BenchmarkContractProbe")
	fs.Parse(args)
	if fs.NArg() != 1 {
		return errors.New("targets: want RESULTS.tsv")
	}
	rows, _, err := readResults(fs.Arg(0))
	if err != nil {
		return err
	}
	w := os.Stdout
	mark := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "**no**"
	}
	field := func(r row, key string) string {
		for _, f := range strings.Fields(r.note) {
			if v, ok := strings.CutPrefix(f, key+"="); ok {
				return v
			}
		}
		return ""
	}
	num := func(r row, key string) float64 {
		s := field(r, key)
		s = strings.TrimSuffix(strings.TrimSuffix(s, "ms"), "KiB")
		v, _ := strconv.ParseFloat(s, 64)
		return v
	}
	fmt.Fprintln(w, "| target (issue 20) | measured | ratio | met |")
	fmt.Fprintln(w, "| --- | --- | --- | --- |")
	floor, hasFloor := rows["t20.floor"]
	proc := func(id, label string, limit time.Duration, maxRatio float64) {
		r, ok := rows[id]
		if !ok {
			fmt.Fprintf(w, "| %s | not measured | | |\n", label)
			return
		}
		ratio := num(r, "ratio")
		met := r.median <= limit
		if maxRatio > 0 {
			met = met && ratio <= maxRatio
		}
		extra := ""
		if strings.Contains(r.note, "UNEXPECTED") {
			extra, met = " ⚠ unexpected exits", false
		}
		fr := ""
		if hasFloor {
			fr = fmt.Sprintf("%.2f× floor (%.2f ms; median of per-round ratios)", ratio, ms(floor.median))
		}
		if limit == 0 { // a figure beside the targets, not one of them
			fmt.Fprintf(w, "| %s | %.2f ms median, CPU %.2f ms, RSS %.1f MiB%s | %s | |\n", label,
				ms(r.median), num(r, "cpu"), num(r, "rss")/1024, extra, fr)
			return
		}
		fmt.Fprintf(w, "| %s ≤ %v%s | %.2f ms median, CPU %.2f ms, RSS %.1f MiB%s | %s | %s |\n", label, limit,
			map[bool]string{true: fmt.Sprintf(" and ≤ %.1f× floor", maxRatio), false: ""}[maxRatio > 0],
			ms(r.median), num(r, "cpu"), num(r, "rss")/1024, extra, fr, mark(met))
	}
	proc("t20.thin", "warm hook call, thin client (`rivumi-hook`)", 3500*time.Microsecond, 2)
	// The target is the thin client's; the full binary is its
	// fallback, shown for comparison.
	proc("t20.warm", "(warm hook call, full binary `rivumi hook --socket S`: the fallback, no target)", 0, 0)
	proc("t20.cold", "cold hook call (`--socket none`, in-process)", 15*time.Millisecond, 0)
	// Issue 34's targets are ratios alone (the machine's speed cancels).
	ratioRow := func(id, label string, maxRatio float64) {
		r, ok := rows[id]
		if !ok || !hasFloor {
			fmt.Fprintf(w, "| %s ≤ %.1f× floor | not measured | | |\n", label, maxRatio)
			return
		}
		ratio := num(r, "ratio")
		fmt.Fprintf(w, "| %s ≤ %.1f× floor | %.2f ms median, RSS %.1f MiB | %.2f× floor | %s |\n", label, maxRatio,
			ms(r.median), num(r, "rss")/1024, ratio, mark(ratio <= maxRatio && !strings.Contains(r.note, "UNEXPECTED")))
	}
	// The agent runs the installed entry through a shell: its floor is the
	// floor program through the same shell (floorsh).
	if r, ok := rows["t20.installed"]; ok {
		if f, ok := rows["t20.floorsh"]; ok && f.median > 0 {
			ratio := float64(r.median) / float64(f.median)
			fmt.Fprintf(w, "| issue 34: the installed default (thin client through `sh -c`, warm) ≤ 1.2× floor through `sh -c` | %.2f ms median, RSS %.1f MiB | %.2f× (%.2f ms; ratio of medians) | %s |\n",
				ms(r.median), num(r, "rss")/1024, ratio, ms(f.median), mark(ratio <= 1.2))
		} else {
			ratioRow("t20.installed", "issue 34: the installed default (thin client through `sh -c`, warm)", 1.2)
		}
	}
	ratioRow("t20.thin", "issue 34: the thin client itself, warm", 1.2)
	ratioRow("t20.cold", "issue 34: cold call", 1.5)
	if r, ok := rows["t20.true"]; ok {
		fmt.Fprintf(w, "| (process floor `/bin/true`) | %.2f ms | %.2f× floor | |\n", ms(r.median), num(r, "ratio"))
	}
	if *gb != "" {
		bench, err := goBench(*gb)
		if err != nil {
			return err
		}
		ev, ok := bench["BenchmarkEvaluateCold"]["median-ns/cmd"]
		pm := bench["BenchmarkParseMix"]["median-ns/cmd"]
		allocs := bench["BenchmarkEvaluateCold"]["allocs/op"] / float64(len(benchdata.Mix))
		if ok && pm > 0 {
			fmt.Fprintf(w, "| uncached verdict ≤ 40 µs median | %.1f µs | %.1f× parse (%.2f µs) | %s |\n", ev/1e3, ev/pm, pm/1e3, mark(ev <= 40000))
			fmt.Fprintf(w, "| … ≤ 5× its parse | | %.1f× | %s |\n", ev/pm, mark(ev/pm <= 5))
			fmt.Fprintf(w, "| … < 400 allocations per command | %.0f | | %s |\n", allocs, mark(allocs < 400))
			fmt.Fprintf(w, "| issue 34: uncached verdict ≤ 1.5× its parse | | %.2f× | %s |\n", ev/pm, mark(ev/pm <= 1.5))
		}
	}
	if r, ok := rows["t20.serve"]; ok {
		rss := 0.0
		if hr, ok := rows["t20.serve.rss"]; ok {
			rss = num(hr, "VmHWM")
		}
		ratio := fmt.Sprintf("%.2f× target", r.perSec/15000)
		if o, ok := rows["t20.opa"]; ok && o.perSec > 0 {
			ratio += fmt.Sprintf("; %.2f× stock OPA on one rule (%.0f/s, p99 %.2f ms)", r.perSec/o.perSec, o.perSec, ms(o.p99))
		}
		cpu := ""
		if v := field(r, "server-cpu"); v != "" {
			cpu = ", server CPU " + strings.TrimSuffix(v, "/req") + " a verdict"
			if c := field(r, "client-cpu"); c != "" {
				cpu += ", load client " + strings.TrimSuffix(c, "/req")
			}
		}
		fmt.Fprintf(w, "| serve, no cache hit, 16 clients ≥ 15k verdicts/s | %.0f/s%s | %s | %s |\n", r.perSec, cpu, ratio, mark(r.perSec >= 15000))
		fmt.Fprintf(w, "| … p99 ≤ 5 ms | %.2f ms | | %s |\n", ms(r.p99), mark(r.p99 <= 5*time.Millisecond))
		fmt.Fprintf(w, "| … peak RSS ≤ 60 MiB | %.0f MiB | | %s |\n", rss/1024, mark(rss > 0 && rss <= 60*1024))
		if o, ok := rows["t20.opa"]; ok && o.perSec > 0 {
			fmt.Fprintf(w, "| issue 34: serve ≥ 1.5× stock OPA's verdicts/s | %.0f/s against %.0f/s | %.2f× | %s |\n",
				r.perSec, o.perSec, r.perSec/o.perSec, mark(r.perSec >= 1.5*o.perSec))
			fmt.Fprintf(w, "| issue 34: … at p99 ≤ stock OPA's | %.2f ms against %.2f ms | | %s |\n", ms(r.p99), ms(o.p99), mark(r.p99 <= o.p99))
		}
	}
	if *hb != "" {
		bench, err := goBench(*hb)
		if err != nil {
			return err
		}
		for _, l := range harnessRows(bench) {
			fmt.Fprintln(w, l)
		}
	}
	return nil
}

// harnessRows are the exec gate's and the sandbox probe's figures (issue
// 34 item 5: reported beside the targets, with no target of their own):
// the gate's cost per exec is the difference between a script running
// 1,000 /bin/true under Landlock with the gate and the same script
// without it, over 1,000 (medians of the runs); the contract probe is
// paid once per process, backend and network setting when a harness is
// made.
func harnessRows(bench map[string]map[string]float64) []string {
	const execs = 1000
	var out []string
	plain, okPlain := bench["BenchmarkGate1000Execs/plain"]["ns/op"]
	for _, c := range []struct{ sub, label string }{
		{"gated", "exec gate grading each exec with the real engine"},
		{"gated-no-grading", "exec gate, a grader that allows at once"},
	} {
		g, ok := bench["BenchmarkGate1000Execs/"+c.sub]["ns/op"]
		if !ok || !okPlain {
			out = append(out, fmt.Sprintf("| (%s) | not measured (no Landlock?) | | |", c.label))
			continue
		}
		out = append(out, fmt.Sprintf("| (%s: cost per exec) | %.0f µs (%d execs: %.2f s against %.2f s plain) | %.2f× plain | |",
			c.label, (g-plain)/execs/1e3, execs, g/1e9, plain/1e9, g/plain))
	}
	for _, b := range []string{"bwrap", "landlock"} {
		if p, ok := bench["BenchmarkContractProbe/"+b]["ns/op"]; ok {
			out = append(out, fmt.Sprintf("| (sandbox contract probe, %s: once per process and backend) | %.1f ms | | |", b, p/1e6))
		} else {
			out = append(out, fmt.Sprintf("| (sandbox contract probe, %s) | not measured (backend unavailable) | | |", b))
		}
	}
	return out
}
