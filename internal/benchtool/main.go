// Command benchtool is the measuring side of scripts/bench: it times whole
// processes, drives a loopback load against `rivumi serve`, grades the mix
// in-process for the side-by-side table, and renders the results.
//
// It is a development tool, not part of rivumi:
//
//	benchtool mix                                   the shared command mix, one JSON string a line
//	benchtool exec [flags] -- PROG ARGS...          run a process N times, report median/p95 wall time
//	benchtool ab [flags] ID PROG ARGS... +++ ...    time several processes interleaved (A/B), with ratios
//	benchtool load [flags] -url http://127.0.0.1:P  N clients for a fixed time against POST /v1/verdict
//	benchtool inproc [flags]                        grade the mix in this process (engine.EvaluateText)
//	benchtool targets [-gobench F] RESULTS.tsv      issue 20's targets with their ratios
//	benchtool report RESULTS.tsv                    the figures as a Markdown table, with ratios
//	benchtool medians GOBENCH.txt                   per benchmark, the median of each unit over -count runs
//
// Every measuring subcommand appends one line to -out (a TSV file):
//
//	id  median-ns  p95-ns  p99-ns  per-second  note
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/benchdata"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "mix":
		err = cmdMix()
	case "exec":
		err = cmdExec(os.Args[2:])
	case "ab":
		err = cmdAB(os.Args[2:])
	case "targets":
		err = cmdTargets(os.Args[2:])
	case "load":
		err = cmdLoad(os.Args[2:])
	case "inproc":
		err = cmdInproc(os.Args[2:])
	case "report":
		err = cmdReport(os.Args[2:])
	case "medians":
		err = cmdMedians(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtool:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: benchtool mix | exec | ab | load | inproc | report (see the package doc)")
	os.Exit(2)
}

// cmdMix prints benchdata.Mix, one JSON string a line.
func cmdMix() error {
	w := bufio.NewWriter(os.Stdout)
	for _, c := range benchdata.Mix {
		b, _ := json.Marshal(c)
		w.Write(b)
		w.WriteByte('\n')
	}
	return w.Flush()
}

// readCmds reads a file of JSON strings, one a line.
func readCmds(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var s string
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no commands", path)
	}
	return out, sc.Err()
}

// claudePayload is a Claude Code PreToolUse hook call for a Bash command.
func claudePayload(cmd, cwd string, i int) []byte {
	b, _ := json.Marshal(map[string]any{
		"session_id": "bench", "transcript_path": "/tmp/bench-transcript.jsonl", "cwd": cwd,
		"permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]string{"command": cmd}, "tool_use_id": fmt.Sprintf("toolu_%d", i),
	})
	return b
}

// stats are the quantiles of a sample of durations.
type stats struct {
	n                      int
	median, p95, p99, mean time.Duration
}

func quantiles(d []time.Duration) stats {
	if len(d) == 0 {
		return stats{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	var sum time.Duration
	for _, x := range s {
		sum += x
	}
	q := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	return stats{n: len(s), median: q(0.5), p95: q(0.95), p99: q(0.99), mean: sum / time.Duration(len(s))}
}

// appendResult appends one TSV line to path (stdout when empty).
func appendResult(path, id string, s stats, perSec float64, note string) error {
	line := fmt.Sprintf("%s\t%d\t%d\t%d\t%.1f\t%s\n", id, s.median.Nanoseconds(), s.p95.Nanoseconds(), s.p99.Nanoseconds(), perSec, strings.ReplaceAll(note, "\t", " "))
	if path == "" {
		_, err := os.Stdout.WriteString(line)
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(line)
	return err
}

// cmdExec runs a program n times (after warmup runs), each a fresh
// process, and reports the wall time from start to exit.
func cmdExec(args []string) error {
	fs := flag.NewFlagSet("exec", flag.ExitOnError)
	n := fs.Int("n", 50, "measured runs")
	warmup := fs.Int("warmup", 3, "unmeasured runs first (page cache, compile caches)")
	id := fs.String("id", "", "result id")
	out := fs.String("out", "", "append the result to this TSV file")
	stdinFile := fs.String("stdin", "", "feed this file on stdin to every run")
	hookCmds := fs.String("hook-payloads", "", "feed run i a Claude Code PreToolUse payload for command i of this file (JSON strings, one a line)")
	cwd := fs.String("payload-cwd", "/tmp", "the payload's cwd")
	okCodes := fs.String("ok", "0", "exit codes that count as an answer (comma-separated)")
	timeout := fs.Duration("timeout", 30*time.Second, "deadline of one run")
	fs.Parse(args)
	argv := fs.Args()
	if len(argv) == 0 || *id == "" {
		return errors.New("exec: need -id and a program")
	}
	ok := map[int]bool{}
	for _, c := range strings.Split(*okCodes, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil {
			return fmt.Errorf("exec: -ok %q", *okCodes)
		}
		ok[v] = true
	}
	var payloads [][]byte
	switch {
	case *hookCmds != "":
		cmds, err := readCmds(*hookCmds)
		if err != nil {
			return err
		}
		for i, c := range cmds {
			payloads = append(payloads, claudePayload(c, *cwd, i))
		}
	case *stdinFile != "":
		b, err := os.ReadFile(*stdinFile)
		if err != nil {
			return err
		}
		payloads = [][]byte{b}
	}
	var durs []time.Duration
	var cpu time.Duration
	bad, firstBad := 0, ""
	for i := 0; i < *warmup+*n; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		c := exec.CommandContext(ctx, argv[0], argv[1:]...)
		if payloads != nil {
			c.Stdin = bytes.NewReader(payloads[i%len(payloads)])
		}
		var so, se bytes.Buffer
		c.Stdout, c.Stderr = &so, &se
		t0 := time.Now()
		err := c.Run()
		d := time.Since(t0)
		cancel()
		code := 0
		if err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				return fmt.Errorf("exec %s: %v", *id, err)
			}
			code = ee.ExitCode()
		}
		if !ok[code] {
			bad++
			if firstBad == "" {
				firstBad = fmt.Sprintf("exit %d: %s%s", code, strings.TrimSpace(so.String()), strings.TrimSpace(se.String()))
			}
		}
		if i >= *warmup {
			durs = append(durs, d)
			cpu += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
		}
	}
	s := quantiles(durs)
	note := fmt.Sprintf("n=%d cpu=%.1fms", s.n, float64(cpu.Microseconds())/1000/float64(s.n))
	if bad > 0 {
		if len(firstBad) > 200 {
			firstBad = firstBad[:200]
		}
		note += fmt.Sprintf(" UNEXPECTED-EXIT=%d/%d (%s)", bad, *warmup+*n, firstBad)
	}
	fmt.Fprintf(os.Stderr, "  %-28s median %7.2f ms  p95 %7.2f ms  (%s)\n", *id, ms(s.median), ms(s.p95), note)
	return appendResult(*out, *id, s, float64(time.Second)/float64(s.mean), note)
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// cmdInproc grades the mix in this process for a fixed time, one command
// after the other, timing each call: the figure the node script measures
// for cc-safety-net's checkCommand.
func cmdInproc(args []string) error {
	fs := flag.NewFlagSet("inproc", flag.ExitOnError)
	dur := fs.Duration("d", 3*time.Second, "measuring time")
	warm := fs.Duration("warmup", time.Second, "unmeasured time first")
	cache := fs.Bool("cache", false, "keep the engine's segment cache on")
	cmdsFile := fs.String("cmds", "", "commands (default: the built-in mix)")
	id := fs.String("id", "", "result id")
	out := fs.String("out", "", "append the result to this TSV file")
	fs.Parse(args)
	cmds := benchdata.Mix
	if *cmdsFile != "" {
		var err error
		if cmds, err = readCmds(*cmdsFile); err != nil {
			return err
		}
	}
	var opts []engine.Option
	if !*cache {
		opts = append(opts, engine.CacheSize(0))
	}
	ctx := context.Background()
	t0 := time.Now()
	e, err := engine.New(ctx, opts...)
	if err != nil {
		return err
	}
	startup := time.Since(t0)
	eo := []engine.EvalOption{engine.Cwd("/work/proj"), engine.Workspace("/work/proj"), engine.Home("/home/dev")}
	loop := func(d time.Duration, record bool) []time.Duration {
		var durs []time.Duration
		end := time.Now().Add(d)
		for i := 0; time.Now().Before(end); i++ {
			c := cmds[i%len(cmds)]
			t := time.Now()
			e.EvaluateText(ctx, c, eo...)
			if record {
				durs = append(durs, time.Since(t))
			}
		}
		return durs
	}
	loop(*warm, false)
	durs := loop(*dur, true)
	s := quantiles(durs)
	note := fmt.Sprintf("n=%d mean=%.1fus startup=%.1fms", s.n, float64(s.mean.Nanoseconds())/1e3, ms(startup))
	fmt.Fprintf(os.Stderr, "  %-28s median %7.1f us  p95 %7.1f us  %8.0f cmds/s  (%s)\n", *id, float64(s.median.Nanoseconds())/1e3, float64(s.p95.Nanoseconds())/1e3, float64(time.Second)/float64(s.mean), note)
	return appendResult(*out, *id, s, float64(time.Second)/float64(s.mean), note)
}

// row is one line of the results file.
type row struct {
	id               string
	median, p95, p99 time.Duration
	perSec           float64
	note             string
}

func readResults(path string) (map[string]row, []string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	rows := map[string]row{}
	var order []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(line, "\t", 6)
		if len(f) < 6 {
			continue
		}
		num := func(s string) time.Duration { v, _ := strconv.ParseInt(s, 10, 64); return time.Duration(v) }
		ps, _ := strconv.ParseFloat(f[4], 64)
		r := row{id: f[0], median: num(f[1]), p95: num(f[2]), p99: num(f[3]), perSec: ps, note: f[5]}
		if _, dup := rows[r.id]; !dup {
			order = append(order, r.id)
		}
		rows[r.id] = r
	}
	return rows, order, nil
}

// goBench reads `go test -bench` output and returns, per benchmark and
// unit, the median over the -count runs.
func goBench(path string) (map[string]map[string]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	vals := map[string]map[string][]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i] // drop -GOMAXPROCS
		}
		if vals[name] == nil {
			vals[name] = map[string][]float64{}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			vals[name][f[i+1]] = append(vals[name][f[i+1]], v)
		}
	}
	out := map[string]map[string]float64{}
	for n, units := range vals {
		out[n] = map[string]float64{}
		for u, vs := range units {
			slices.Sort(vs)
			out[n][u] = vs[len(vs)/2]
		}
	}
	return out, nil
}

// cmdReport renders the results (and the Go benchmark medians) as
// Markdown: the side-by-side table with ratios, then the targets.
func cmdReport(args []string) error {
	fs := flag.NewFlagSet("report", flag.ExitOnError)
	gb := fs.String("gobench", "", "go test -bench output (for the in-process targets)")
	fs.Parse(args)
	if fs.NArg() != 1 {
		return errors.New("report: want RESULTS.tsv")
	}
	rows, order, err := readResults(fs.Arg(0))
	if err != nil {
		return err
	}
	var bench map[string]map[string]float64
	if *gb != "" {
		if bench, err = goBench(*gb); err != nil {
			fmt.Fprintln(os.Stderr, "benchtool report:", err)
		}
	}
	get := func(id string) (row, bool) { r, ok := rows[id]; return r, ok }
	w := os.Stdout
	msf := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", ms(d)) }
	usf := func(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d.Nanoseconds())/1e3) }
	ratio := func(a, b time.Duration) string {
		if a <= 0 || b <= 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f×", float64(a)/float64(b))
	}

	fmt.Fprintln(w, "### Per call, fresh process (same Claude Code payloads over the mix)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| tool / mode | median | p95 | CPU/call | × rivumi hook cold | × rivumi hook warm |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: |")
	cold, _ := get("rivumi.hook.cold")
	warm, _ := get("rivumi.hook.warm")
	procRows := []struct{ id, label string }{
		{"floor.true", "`/bin/true` (process spawn floor)"},
		{"floor.node", "`node -e ''` (Node start-up floor)"},
		{"floor.rivumi", "`rivumi --help` (rivumi binary start-up floor)"},
		{"rivumi.eval.cold", "`rivumi policy eval 'ls -la'` (cold)"},
		{"rivumi.hook.cold", "`rivumi hook claude-code --socket none` (compile in-process)"},
		{"rivumi.hook.warm", "`rivumi hook claude-code --socket S` (warm `rivumi serve`)"},
		{"ccsn.hook", "cc-safety-net `hook -cc`"},
		{"shellfirm.hook", "shellfirm `check --stdin --format json --exit-code`"},
	}
	for _, p := range procRows {
		r, ok := get(p.id)
		if !ok {
			fmt.Fprintf(w, "| %s | not measured | | | | |\n", p.label)
			continue
		}
		cpu := "–"
		for _, f := range strings.Fields(r.note) {
			if v, ok := strings.CutPrefix(f, "cpu="); ok {
				cpu = strings.Replace(v, "ms", " ms", 1)
			}
		}
		extra := ""
		if strings.Contains(r.note, "UNEXPECTED") {
			extra = " ⚠ " + r.note
		}
		fmt.Fprintf(w, "| %s%s | %s | %s | %s | %s | %s |\n", p.label, extra, msf(r.median), msf(r.p95), cpu, ratio(r.median, cold.median), ratio(r.median, warm.median))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### In-process, one call after the other over the mix (one thread)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| library | median | p95 | calls/s | × rivumi (median) | × rivumi (calls/s) |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: |")
	ref, _ := get("rivumi.inproc.cold")
	for _, p := range []struct{ id, label string }{
		{"rivumi.inproc.cold", "rivumi `engine.EvaluateText`, segment cache off"},
		{"rivumi.inproc.cache", "rivumi `engine.EvaluateText`, segment cache on"},
		{"ccsn.inproc", "cc-safety-net `checkCommand` (node)"},
	} {
		r, ok := get(p.id)
		if !ok {
			fmt.Fprintf(w, "| %s | not measured | | | | |\n", p.label)
			continue
		}
		rps := "–"
		if ref.perSec > 0 && r.perSec > 0 {
			rps = fmt.Sprintf("%.2f×", r.perSec/ref.perSec)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.0f | %s | %s |\n", p.label, usf(r.median), usf(r.p95), r.perSec, ratio(r.median, ref.median), rps)
	}
	fmt.Fprintln(w, "| shellfirm | no library API in its npm package | | | | |")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### `rivumi serve` over loopback HTTP (load generator on the same 2 cores)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| load | verdicts/s | p50 | p99 | note |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | --- |")
	for _, id := range order {
		if !strings.HasPrefix(id, "serve.") || id == "serve.rss" {
			continue
		}
		r := rows[id]
		fmt.Fprintf(w, "| %s | %.0f | %s | %s | %s |\n", strings.TrimPrefix(id, "serve."), r.perSec, msf(r.median), msf(r.p99), r.note)
	}
	if r, ok := get("serve.rss"); ok {
		fmt.Fprintf(w, "\nServer memory after the load: %s\n", r.note)
	}
	if r, ok := get("rivumi.policytest"); ok {
		fmt.Fprintf(w, "\n`rivumi policy test` (whole process, testcases/): median %s (%s)\n", msf(r.median), r.note)
	}

	// Targets.
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### Targets (issue 7)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| target | measured | met |")
	fmt.Fprintln(w, "| --- | --- | --- |")
	mark := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "**no**"
	}
	if bench != nil {
		ev, evOK := bench["BenchmarkEvaluateCold"]["median-ns/cmd"]
		evc := bench["BenchmarkEvaluate"]["median-ns/cmd"]
		pm := bench["BenchmarkParseMix"]["median-ns/cmd"]
		if evOK {
			fmt.Fprintf(w, "| in-process verdict median < 25 µs (mix, cache off) | %.1f µs (cache on: %.1f µs) | %s |\n", ev/1e3, evc/1e3, mark(ev < 25000))
			if pm > 0 {
				fmt.Fprintf(w, "| verdict ≤ 10× parse (medians, same mix) | %.1f µs / %.2f µs = %.1f× | %s |\n", ev/1e3, pm/1e3, ev/pm, mark(ev/pm <= 10))
			}
			fmt.Fprintf(w, "| allocations per verdict (cache off) | %.0f allocs, %.0f B per 30-command mix = %.0f allocs/cmd | (driven down: track) |\n",
				bench["BenchmarkEvaluateCold"]["allocs/op"], bench["BenchmarkEvaluateCold"]["B/op"], bench["BenchmarkEvaluateCold"]["allocs/op"]/float64(len(benchdata.Mix)))
		}
		if pt, ok := bench["BenchmarkPolicyTest"]["sec/op"]; ok {
			fmt.Fprintf(w, "| `policy test` over 1,000+ testcases < 2 s (in-process benchmark) | %.2f s | %s |\n", pt, mark(pt < 2))
		} else if pt, ok := bench["BenchmarkPolicyTest"]["ns/op"]; ok {
			fmt.Fprintf(w, "| `policy test` over 1,000+ testcases < 2 s (in-process benchmark) | %.2f s | %s |\n", pt/1e9, mark(pt < 2e9))
		}
	}
	if r, ok := get("rivumi.policytest"); ok {
		fmt.Fprintf(w, "| `policy test` < 2 s wall including compile (whole process) | %.2f s | %s |\n", ms(r.median)/1000, mark(r.median < 2*time.Second))
	}
	cc, ccOK := get("ccsn.hook")
	sf, sfOK := get("shellfirm.hook")
	faster := func(r row) string {
		var parts []string
		if ccOK {
			parts = append(parts, fmt.Sprintf("cc-safety-net %s", msf(cc.median)))
		}
		if sfOK {
			parts = append(parts, fmt.Sprintf("shellfirm %s", msf(sf.median)))
		}
		return strings.Join(parts, ", ")
	}
	beats := func(r row) bool { return (!ccOK || r.median < cc.median) && (!sfOK || r.median < sf.median) }
	if warm.id != "" {
		fmt.Fprintf(w, "| hook via warm socket: median < 10 ms | %s | %s |\n", msf(warm.median), mark(warm.median < 10*time.Millisecond))
		fmt.Fprintf(w, "| hook via warm socket faster than the other two | %s vs %s | %s |\n", msf(warm.median), faster(warm), mark(beats(warm)))
	}
	if cold.id != "" {
		fmt.Fprintf(w, "| hook cold (compile in-process): median < 25 ms | %s | %s |\n", msf(cold.median), mark(cold.median < 25*time.Millisecond))
		fmt.Fprintf(w, "| hook cold faster than the other two | %s vs %s | %s |\n", msf(cold.median), faster(cold), mark(beats(cold)))
	}
	if r, ok := get("serve.c16"); ok {
		fmt.Fprintf(w, "| serve ≥ 20,000 verdicts/s (mix, cache on) | %.0f/s | %s |\n", r.perSec, mark(r.perSec >= 20000))
		fmt.Fprintf(w, "| serve p99 < 5 ms at that load | %s | %s |\n", msf(r.p99), mark(r.p99 < 5*time.Millisecond))
	}
	if r, ok := get("serve.c16.unique"); ok {
		fmt.Fprintf(w, "| (same, every request a cache miss) | %.0f/s, p99 %s | %s |\n", r.perSec, msf(r.p99), mark(r.perSec >= 20000 && r.p99 < 5*time.Millisecond))
	}
	if r, ok := get("serve.rss"); ok {
		kb := 0
		for _, f := range strings.Fields(r.note) {
			if v, ok := strings.CutPrefix(f, "VmHWM="); ok {
				kb, _ = strconv.Atoi(strings.TrimSuffix(v, "kB"))
			}
		}
		fmt.Fprintf(w, "| serve RSS < 150 MB (peak, VmHWM) | %.0f MB | %s |\n", float64(kb)/1024, mark(kb > 0 && kb < 150*1024))
	}
	return nil
}

// cmdMedians prints the median of every unit of every benchmark of a
// `go test -bench -count=N` output: the fallback when benchstat is not to
// be had.
func cmdMedians(args []string) error {
	if len(args) != 1 {
		return errors.New("medians: want GOBENCH.txt")
	}
	m, err := goBench(args[0])
	if err != nil {
		return err
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		units := make([]string, 0, len(m[n]))
		for u := range m[n] {
			units = append(units, u)
		}
		slices.Sort(units)
		fmt.Printf("%-40s", n)
		for _, u := range units {
			fmt.Printf("  %.4g %s", m[n][u], u)
		}
		fmt.Println()
	}
	return nil
}

// procCPU is the user+system CPU time of process pid (0: none), from
// /proc/PID/stat, in clock ticks of 10 ms.
func procCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}
