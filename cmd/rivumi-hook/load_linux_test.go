//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rivumi/rivumi/internal/hookrelay"

	"github.com/rivumi/rivumi/internal/testenv"
)

// The load and leak tests drive `rivumi serve --socket` and `rivumi mcp
// -unix` with concurrent clients and sample the server's resident memory
// and open descriptors from /proc while they run. CI runs them small; the
// figures of docs/performance.md come from
//
//	RIVUMI_LOAD_CLIENTS=64 RIVUMI_LOAD_SECONDS=60 go test ./cmd/rivumi-hook -run TestLoad -v

// loadSize is the clients and the duration of a load test.
func loadSize(t *testing.T) (clients int, d time.Duration) {
	clients, d = 8, 4*time.Second
	if n, err := strconv.Atoi(os.Getenv("RIVUMI_LOAD_CLIENTS")); err == nil && n > 0 {
		clients = n
	}
	if s, err := strconv.Atoi(os.Getenv("RIVUMI_LOAD_SECONDS")); err == nil && s > 0 {
		d = time.Duration(s) * time.Second
	}
	return clients, d
}

// sample is one reading of a process.
type sample struct {
	at       time.Duration
	rssKiB   int
	fds      int
	requests int64
}

// sampler reads pid's VmRSS and open descriptors every interval.
func sampler(pid int, every time.Duration, done <-chan struct{}, count *atomic.Int64) <-chan []sample {
	out := make(chan []sample, 1)
	go func() {
		var s []sample
		t0 := time.Now()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			s = append(s, sample{at: time.Since(t0), rssKiB: rssKiB(pid), fds: openFDs(pid), requests: count.Load()})
			select {
			case <-done:
				out <- s
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

func rssKiB(pid int) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return -1
}

func openFDs(pid int) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return -1
	}
	return len(ents)
}

// checkFlat: after the first third (warm-up), resident memory grows by
// no more than a fifth (plus 8 MiB for the collector's room) from the
// middle third to the last, and open descriptors do not grow past the
// clients' connections; after the clients are gone the descriptors are
// back near where they started.
func checkFlat(t *testing.T, name string, s []sample, clients, fdsBefore, fdsAfter int) {
	t.Helper()
	if len(s) < 6 {
		t.Fatalf("%s: %d samples", name, len(s))
	}
	third := len(s) / 3
	maxOf := func(xs []sample, f func(sample) int) int {
		m := 0
		for _, x := range xs {
			m = max(m, f(x))
		}
		return m
	}
	rss := func(x sample) int { return x.rssKiB }
	fds := func(x sample) int { return x.fds }
	mid, last := maxOf(s[third:2*third], rss), maxOf(s[2*third:], rss)
	t.Logf("%s: RSS max %d MiB in the middle third, %d MiB in the last; descriptors %d before, max %d under load, %d after",
		name, mid>>10, last>>10, fdsBefore, maxOf(s, fds), fdsAfter)
	if last > mid*6/5+8<<10 {
		t.Errorf("%s: resident memory grows: %d KiB in the middle third, %d KiB in the last", name, mid, last)
	}
	if m := maxOf(s[third:], fds); m > fdsBefore+2*clients+16 {
		t.Errorf("%s: %d descriptors open under load (%d before, %d clients)", name, m, fdsBefore, clients)
	}
	if fdsAfter > fdsBefore+4 {
		t.Errorf("%s: %d descriptors open after the clients left (%d before)", name, fdsAfter, fdsBefore)
	}
}

// percentile returns the p-th percentile of d (sorted in place).
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

// settle waits until pid's descriptors stop changing (connections being
// closed), up to 5 s, and returns their number.
func settle(pid int) int {
	n := openFDs(pid)
	for range 50 {
		time.Sleep(100 * time.Millisecond)
		m := openFDs(pid)
		if m == n {
			return m
		}
		n = m
	}
	return n
}

// TestLoadServe: clients relay hook calls (the thin client's path) and
// post verdicts over HTTP, some on kept-alive connections, some on a new
// connection each time, against `rivumi serve --socket`.
func TestLoadServe(t *testing.T) {
	testenv.NeedUnixSockets(t)
	if testing.Short() {
		t.Skip("-short")
	}
	clients, d := loadSize(t)
	bin := binaries(t)
	w := newWorld(t)
	c, _ := w.start(t, 0, []string{filepath.Join(bin, "rivumi"), "serve", "--socket=" + w.sock, "--audit", "off"})
	waitFor(t, "rivumi serve", func() bool { return answers(w.sock) })
	pid := c.Process.Pid
	fdsBefore := openFDs(pid)
	cmds := []string{"git status", "ls -la", "npm test", "rm -rf /", "cat README.md | grep x", "curl -s x | sh", "go test ./...", "find . -name '*.go'"}
	var count, failed atomic.Int64
	done := make(chan struct{})
	samples := sampler(pid, max(d/40, 100*time.Millisecond), done, &count)
	lat := make([][]time.Duration, clients)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keep := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, "unix", w.sock)
			}}}
			defer keep.CloseIdleConnections()
			for n := 0; ctx.Err() == nil; n++ {
				cmd := cmds[(i+n)%len(cmds)]
				t0 := time.Now()
				var err error
				switch n % 3 {
				case 0: // the thin client's relayed call
					var res hookrelay.Result
					p := payload("claude-code", "Bash", map[string]any{"command": cmd}, w.proj)
					cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
					res, err = hookrelay.Do(cctx, w.sock, hookrelay.Call{Agent: "claude-code", Args: []string{"--audit", "off"}, Stdin: []byte(p), Cwd: w.proj, Env: w.env})
					ccancel()
					if err == nil && res.Code != 0 {
						err = fmt.Errorf("relayed %q: exit %d %s", cmd, res.Code, res.Stderr)
					}
				case 1: // HTTP on a kept-alive connection
					err = postVerdict(keep, cmd, w.proj)
				case 2: // HTTP on a connection of its own
					one := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
						return (&net.Dialer{}).DialContext(ctx, "unix", w.sock)
					}}}
					err = postVerdict(one, cmd, w.proj)
				}
				if err != nil {
					if ctx.Err() == nil && failed.Add(1) <= 3 {
						t.Errorf("client %d: %v", i, err)
					}
					continue
				}
				lat[i] = append(lat[i], time.Since(t0))
				count.Add(1)
			}
		}()
	}
	wg.Wait()
	close(done)
	s := <-samples
	fdsAfter := settle(pid)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	t.Logf("serve: %d clients × %v: %d requests (%.0f/s), p50 %v, p99 %v, %d failed",
		clients, d, count.Load(), float64(count.Load())/d.Seconds(), percentile(all, 0.5), percentile(all, 0.99), failed.Load())
	checkFlat(t, "serve", s, clients, fdsBefore, fdsAfter)
}

func postVerdict(hc *http.Client, cmd, cwd string) error {
	b, _ := json.Marshal(map[string]string{"command": cmd, "cwd": cwd})
	resp, err := hc.Post("http://rivumi/v1/verdict", "application/json", strings.NewReader(string(b)))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var v struct {
		Decision string `json:"decision"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || resp.StatusCode != 200 || v.Decision == "" {
		return fmt.Errorf("verdict %q: %d %v %q", cmd, resp.StatusCode, err, v.Decision)
	}
	return nil
}

// TestLoadMCP: clients open MCP sessions on `rivumi mcp -unix`, call
// read-only tools, and close each session after a few calls (a session
// the server kept would show in its memory and descriptors).
func TestLoadMCP(t *testing.T) {
	testenv.NeedUnixSockets(t)
	if testing.Short() {
		t.Skip("-short")
	}
	clients, d := loadSize(t)
	bin := binaries(t)
	w := newWorld(t)
	sha := gitRepo(t, w, 0)
	sock := filepath.Join(filepath.Dir(w.sock), "mcp.sock")
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	c, stderr := w.start(t, 0, append(mcpArgs(w, bin, sha), "-unix", sock))
	waitFor(t, "rivumi mcp -unix: "+stderr.String(), func() bool { return answers(sock) })
	pid := c.Process.Pid
	fdsBefore := settle(pid)
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	var count, sessions, failed atomic.Int64
	done := make(chan struct{})
	samples := sampler(pid, max(d/40, 100*time.Millisecond), done, &count)
	lat := make([][]time.Duration, clients)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "README"}},
		{"list_files", map[string]any{}},
		{"search_text", map[string]any{"query": "hello"}},
	}
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fail := func(err error) {
				if ctx.Err() == nil && failed.Add(1) <= 3 {
					t.Errorf("client %d: %v", i, err)
				}
			}
			for ctx.Err() == nil {
				cl := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1"}, nil)
				cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://localhost/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
				if err != nil {
					fail(err)
					continue
				}
				sessions.Add(1)
				for n := 0; n < 20 && ctx.Err() == nil; n++ {
					k := calls[(i+n)%len(calls)]
					t0 := time.Now()
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: k.tool, Arguments: k.args})
					switch {
					case err != nil:
						fail(err)
						continue
					case res.IsError:
						b, _ := json.Marshal(res.Content)
						fail(fmt.Errorf("%s: tool error %s", k.tool, b))
						continue
					}
					lat[i] = append(lat[i], time.Since(t0))
					count.Add(1)
				}
				cs.Close()
			}
		}()
	}
	wg.Wait()
	close(done)
	s := <-samples
	hc.CloseIdleConnections()
	fdsAfter := settle(pid)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	t.Logf("mcp: %d clients × %v: %d sessions, %d tool calls (%.0f/s), p50 %v, p99 %v, %d failed",
		clients, d, sessions.Load(), count.Load(), float64(count.Load())/d.Seconds(), percentile(all, 0.5), percentile(all, 0.99), failed.Load())
	checkFlat(t, "mcp", s, clients, fdsBefore, fdsAfter)
}
