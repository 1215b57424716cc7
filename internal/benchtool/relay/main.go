// Command relay times the server's turn of a relayed hook call
// (internal/hookrelay): it starts one `rivumi serve --socket` per binary
// given, each in a private home, and sends them relayed Claude Code calls
// from this one warm process, interleaved round by round, so that a drift
// in the machine's load hits every server alike. Per server it reports
// the median round trip, the server's CPU per call (the sum of its
// threads' run time, /proc/PID/task/*/schedstat) and its context switches
// per call, and each figure's ratio to the first server's (the median
// over rounds of the per-round ratios). K=V pairs after a binary are
// added to its server's environment (GOMAXPROCS=1, GODEBUG=…); client=late
// sends that server's calls as hookrelay.Do did before it built the frame
// before connecting.
//
//	go run ./internal/benchtool/relay [flags] ID=RIVUMI[,K=V...] [ID=RIVUMI...]
//
// With -sock it sends calls to a server already running there instead
// (one, named "sock"; no CPU figures). A development tool (issue 20), not
// part of rivumi.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rivumi/rivumi/internal/hookrelay"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		os.Exit(1)
	}
}

type server struct {
	id, bin, sock string
	cmd           *exec.Cmd
	rtt           []time.Duration // every call
	cpu, csw      []float64       // per round: ns and switches per call
	med           []float64       // per round: median round trip, ns
	bad           int
	late          bool // build the call's frame after connecting, as hookrelay.Do did
}

func run() error {
	n := flag.Int("n", 150, "calls per server per round")
	rounds := flag.Int("rounds", 6, "rounds")
	gap := flag.Duration("gap", 50*time.Millisecond, "pause before each call (the server idles between hook calls)")
	command := flag.String("command", "git status --short", "the Bash command of the payload")
	payloadFile := flag.String("payload", "", "the payload file (default: a Claude Code PreToolUse call for -command)")
	sock := flag.String("sock", "", "time the server already running on this socket")
	auditDir := flag.String("audit-dir", "", "the hook's decision log goes here (default: the private home's state dir, on disk)")
	flag.Parse()

	tmp, err := os.MkdirTemp("", "relaybench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	home := filepath.Join(tmp, "home")
	proj := filepath.Join(tmp, "proj")
	for _, d := range []string{filepath.Join(proj, ".git"), filepath.Join(home, ".config"), filepath.Join(tmp, "run")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, ".local/state"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"PATH=" + os.Getenv("PATH"), "RIVUMI_SOCKET=" + filepath.Join(tmp, "run/default.sock")}
	if *auditDir != "" {
		env[1] = "XDG_STATE_HOME=" + *auditDir
	}
	payload := []byte(`{"session_id":"s","transcript_path":"/tmp/t.jsonl","cwd":"` + proj +
		`","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":` +
		strconv.Quote(*command) + `,"description":"d"},"tool_use_id":"toolu_1"}`)
	if *payloadFile != "" {
		if payload, err = os.ReadFile(*payloadFile); err != nil {
			return err
		}
	}

	var servers []*server
	if *sock != "" {
		servers = append(servers, &server{id: "sock", sock: *sock})
	}
	for i, a := range flag.Args() {
		id, bin, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("want ID=RIVUMI[,K=V...], got %q", a)
		}
		senv := slices.Clone(env)
		late := false
		if b, extra, ok := strings.Cut(bin, ","); ok {
			bin = b
			for _, kv := range strings.Split(extra, ",") {
				if kv == "client=late" {
					late = true
				} else {
					senv = append(senv, kv)
				}
			}
		}
		s := &server{id: id, bin: bin, sock: filepath.Join(tmp, "run", strconv.Itoa(i)+".sock"), late: late}
		s.cmd = exec.Command(bin, "serve", "--socket="+s.sock, "--audit", "off")
		s.cmd.Env = senv
		s.cmd.Stderr = os.Stderr
		if err := s.cmd.Start(); err != nil {
			return err
		}
		defer func() { _ = s.cmd.Process.Signal(syscall.SIGTERM); _ = s.cmd.Wait() }()
		servers = append(servers, s)
	}
	if len(servers) == 0 {
		return fmt.Errorf("name a server: -sock S or ID=RIVUMI")
	}
	call := func(s *server) (time.Duration, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c := hookrelay.Call{Agent: "claude-code", Args: []string{"--socket", s.sock},
			Stdin: payload, Cwd: proj, Env: env, PPID: os.Getppid(), Exe: "/usr/local/bin/rivumi-hook"}
		t := time.Now()
		var res hookrelay.Result
		var err error
		if s.late {
			res, err = doLate(s.sock, c)
		} else {
			res, err = hookrelay.Do(ctx, s.sock, c)
		}
		d := time.Since(t)
		return d, err == nil && res.Code == 0 && !res.Local && len(res.Stdout) > 0
	}
	for _, s := range servers {
		up := false
		for range 300 {
			if _, err := os.Stat(s.sock); err == nil {
				up = true
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if !up {
			return fmt.Errorf("%s: no socket %s", s.id, s.sock)
		}
		for range 20 { // warm: the engine, the caches, the stacks
			if _, ok := call(s); !ok {
				return fmt.Errorf("%s: the warm-up call got no answer", s.id)
			}
		}
	}
	for r := range *rounds {
		for k := range servers {
			s := servers[(r+k)%len(servers)]
			cpu0, csw0 := usage(s)
			var rtts []time.Duration
			for range *n {
				time.Sleep(*gap)
				d, ok := call(s)
				if !ok {
					s.bad++
				}
				rtts = append(rtts, d)
			}
			cpu1, csw1 := usage(s)
			s.rtt = append(s.rtt, rtts...)
			s.med = append(s.med, float64(median(rtts)))
			s.cpu = append(s.cpu, float64(cpu1-cpu0)/float64(*n))
			s.csw = append(s.csw, float64(csw1-csw0)/float64(*n))
		}
	}
	fmt.Printf("%d rounds × %d calls, gap %v, command %q\n", *rounds, *n, *gap, *command)
	fmt.Printf("%-10s %10s %10s %10s %10s %8s %8s %8s %8s\n", "server", "rtt med", "rtt p90", "cpu/call", "csw/call", "×rtt", "×cpu", "×csw", "bad")
	ref := servers[0]
	for _, s := range servers {
		p90 := slices.Clone(s.rtt)
		slices.Sort(p90)
		fmt.Printf("%-10s %10s %10s %10s %10.1f %8.3f %8.3f %8.3f %8d\n", s.id, median(s.rtt).Round(time.Microsecond),
			p90[len(p90)*9/10].Round(time.Microsecond), time.Duration(medianf(s.cpu)).Round(time.Microsecond),
			medianf(s.csw), ratio(s.med, ref.med), ratio(s.cpu, ref.cpu), ratio(s.csw, ref.csw), s.bad)
	}
	return nil
}

// doLate is hookrelay.Do as it was before the frame was built first:
// connect, then build the frame and write it.
func doLate(sock string, c hookrelay.Call) (hookrelay.Result, error) {
	conn, err := net.Dial("unix", sock)
	if err != nil {
		return hookrelay.Result{}, err
	}
	defer conn.Close()
	if _, err := conn.Write(hookrelay.AppendCall(nil, c)); err != nil {
		return hookrelay.Result{}, err
	}
	return hookrelay.ReadResult(bufio.NewReader(conn))
}

// usage is the run time (ns) and context switches of s's threads so far.
func usage(s *server) (ns, csw int64) {
	if s.cmd == nil {
		return 0, 0
	}
	dir := fmt.Sprintf("/proc/%d/task", s.cmd.Process.Pid)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join(dir, e.Name(), "schedstat")); err == nil {
			if f := strings.Fields(string(b)); len(f) > 0 {
				v, _ := strconv.ParseInt(f[0], 10, 64)
				ns += v
			}
		}
		if b, err := os.ReadFile(filepath.Join(dir, e.Name(), "status")); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				if k, v, ok := strings.Cut(l, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
					c, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
					csw += c
				}
			}
		}
	}
	return ns, csw
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianf(d []float64) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// ratio is the median over rounds of a[i]/b[i].
func ratio(a, b []float64) float64 {
	var r []float64
	for i := range a {
		if b[i] > 0 {
			r = append(r, a[i]/b[i])
		}
	}
	if len(r) == 0 {
		return 0
	}
	return medianf(r)
}
