package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// abProg is one program of an interleaved comparison.
type abProg struct {
	id   string
	argv []string
	ok   map[int]bool
	wall []time.Duration
	cpu  []time.Duration
	rss  []int64 // peak RSS of each run, KiB
	bad  int
	what string // first unexpected exit
}

// cmdAB times several programs interleaved: every round runs each of them
// once (in an order rotated from round to round), so that a change in the
// machine's load hits all of them alike. It reports per program the median
// wall time, CPU and peak RSS, and its ratio to the reference program: the
// median over rounds of (its wall time / the reference's in the same
// round), which is robust to load drifting between rounds.
//
//	benchtool ab [flags] ID PROG ARGS... [+++ ID PROG ARGS...]...
func cmdAB(args []string) error {
	fs := flag.NewFlagSet("ab", flag.ExitOnError)
	n := fs.Int("n", 40, "rounds")
	warmup := fs.Int("warmup", 3, "unmeasured rounds first")
	ref := fs.String("ref", "", "the program the ratios are to (default: the first)")
	out := fs.String("out", "", "append one result line per program to this TSV file")
	hookCmds := fs.String("hook-payloads", "", "feed run i a Claude Code PreToolUse payload for command i of this file (JSON strings, one a line)")
	cwd := fs.String("payload-cwd", "/tmp", "the payload's cwd")
	okCodes := fs.String("ok", "0", "exit codes that count as an answer (comma-separated; ID=CODES for one program)")
	timeout := fs.Duration("timeout", 30*time.Second, "deadline of one run")
	prefix := fs.String("prefix", "", "prefix of the result ids")
	rssRuns := fs.Int("rss-runs", 5, "runs per program under /usr/bin/time for the peak RSS (when it is there)")
	fs.Parse(args)
	var progs []*abProg
	var cur []string
	flush := func() error {
		if len(cur) < 2 {
			return fmt.Errorf("ab: want ID PROG ARGS... groups separated by +++ (got %q)", cur)
		}
		progs = append(progs, &abProg{id: *prefix + cur[0], argv: cur[1:], ok: map[int]bool{0: true}})
		cur = nil
		return nil
	}
	for _, a := range fs.Args() {
		if a == "+++" {
			if err := flush(); err != nil {
				return err
			}
			continue
		}
		cur = append(cur, a)
	}
	if err := flush(); err != nil {
		return err
	}
	for _, spec := range strings.Split(*okCodes, ",") {
		id, codes, one := strings.Cut(spec, "=")
		if !one {
			codes, id = id, ""
		}
		for _, p := range progs {
			if id == "" || p.id == *prefix+id {
				for _, c := range strings.Split(codes, ":") {
					var v int
					if _, err := fmt.Sscan(c, &v); err != nil {
						return fmt.Errorf("ab: -ok %q", *okCodes)
					}
					p.ok[v] = true
				}
			}
		}
	}
	var payloads [][]byte
	if *hookCmds != "" {
		cmds, err := readCmds(*hookCmds)
		if err != nil {
			return err
		}
		for i, c := range cmds {
			payloads = append(payloads, claudePayload(c, *cwd, i))
		}
	}
	refIdx := 0
	for i, p := range progs {
		if p.id == *prefix+*ref {
			refIdx = i
		}
	}
	for round := 0; round < *warmup+*n; round++ {
		for k := range progs {
			p := progs[(k+round)%len(progs)]
			var stdin []byte
			if payloads != nil {
				stdin = payloads[round%len(payloads)]
			}
			wall, cpu, rss, code, msg, err := runOnce(p.argv, stdin, *timeout)
			if err != nil {
				return fmt.Errorf("ab %s: %v", p.id, err)
			}
			if round < *warmup {
				continue
			}
			if !p.ok[code] {
				p.bad++
				if p.what == "" {
					p.what = fmt.Sprintf("exit %d: %.200s", code, msg)
				}
			}
			p.wall = append(p.wall, wall)
			p.cpu = append(p.cpu, cpu)
			p.rss = append(p.rss, rss)
		}
	}
	// Peak RSS in a pass of its own: a child started from this (Go,
	// vfork) process inherits this process's high-water mark in its
	// rusage, so each run goes through /usr/bin/time, which forks from a
	// small process. Not timed.
	if timeBin, err := exec.LookPath("/usr/bin/time"); err == nil {
		f, err := os.CreateTemp("", "benchtool-rss")
		if err != nil {
			return err
		}
		f.Close()
		defer os.Remove(f.Name())
		for _, p := range progs {
			p.rss = p.rss[:0]
			for i := range *rssRuns {
				var stdin []byte
				if payloads != nil {
					stdin = payloads[i%len(payloads)]
				}
				argv := append([]string{timeBin, "-f", "%M", "-o", f.Name()}, p.argv...)
				if _, _, _, _, _, err := runOnce(argv, stdin, *timeout); err != nil {
					return fmt.Errorf("ab %s: rss: %v", p.id, err)
				}
				b, _ := os.ReadFile(f.Name())
				var kib int64
				fmt.Sscan(lastLine(string(b)), &kib)
				p.rss = append(p.rss, kib)
			}
		}
	}
	refP := progs[refIdx]
	for _, p := range progs {
		ratios := make([]float64, len(p.wall))
		for i := range p.wall {
			ratios[i] = float64(p.wall[i]) / float64(refP.wall[i])
		}
		slices.Sort(ratios)
		s := quantiles(p.wall)
		c := quantiles(p.cpu)
		r := slices.Clone(p.rss)
		slices.Sort(r)
		note := fmt.Sprintf("n=%d cpu=%.2fms rss=%dKiB ratio=%.3f ref=%s", s.n, ms(c.median), r[len(r)/2], ratios[len(ratios)/2], refP.id)
		if p.bad > 0 {
			note += fmt.Sprintf(" UNEXPECTED-EXIT=%d/%d (%s)", p.bad, s.n, p.what)
		}
		fmt.Fprintf(os.Stderr, "  %-24s median %7.2f ms  p95 %7.2f ms  cpu %6.2f ms  rss %6.1f MiB  × %-10s %.2f\n",
			p.id, ms(s.median), ms(s.p95), ms(c.median), float64(r[len(r)/2])/1024, refP.id, ratios[len(ratios)/2])
		if p.bad > 0 {
			fmt.Fprintf(os.Stderr, "    ⚠ %d unexpected exits: %s\n", p.bad, p.what)
		}
		if err := appendResult(*out, p.id, s, float64(time.Second)/float64(s.mean), note); err != nil {
			return err
		}
	}
	return nil
}

// runOnce runs argv with stdin and returns its wall time, CPU time, peak
// RSS (KiB) and exit code.
func runOnce(argv []string, stdin []byte, timeout time.Duration) (wall, cpu time.Duration, rss int64, code int, msg string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	var so, se bytes.Buffer
	c.Stdout, c.Stderr = &so, &se
	t0 := time.Now()
	err = c.Run()
	wall = time.Since(t0)
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return 0, 0, 0, 0, "", err
		}
		code, err = ee.ExitCode(), nil
	}
	cpu = c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	rss = peakRSS(c.ProcessState)
	return wall, cpu, rss, code, strings.TrimSpace(so.String() + " " + se.String()), nil
}

func lastLine(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return l[len(l)-1]
}
