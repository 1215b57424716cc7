//go:build unix

package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rivumi/rivumi/internal/testenv"
)

// autostartEnv is w's environment with starting a server allowed.
func (w *world) autostartEnv(idle string) {
	env := w.env[:0:0]
	for _, kv := range w.env {
		if !strings.HasPrefix(kv, "RIVUMI_NO_AUTOSTART=") {
			env = append(env, kv)
		}
	}
	w.env = append(env, "RIVUMI_SERVE_IDLE="+idle)
}

// startedPIDs reads the servers the hooks started from the log next to
// the socket.
func startedPIDs(t *testing.T, sock string) []int {
	b, _ := os.ReadFile(sock + ".log")
	var pids []int
	for _, m := range regexp.MustCompile(`started rivumi serve \(pid (\d+)\)`).FindAllStringSubmatch(string(b), -1) {
		var pid int
		if _, err := fmt.Sscan(m[1], &pid); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func answers(sock string) bool {
	c, err := net.DialTimeout("unix", sock, 200*time.Millisecond)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// TestAutostart: concurrent cold calls grade in-process and start one
// server, in a 0700 directory; the thin client then relays to it; it
// exits when idle.
func TestAutostart(t *testing.T) {
	testenv.NeedUnixSockets(t)
	dir := binaries(t)
	w := newWorld(t)
	w.autostartEnv("3s")
	p := payload("claude-code", "Bash", map[string]any{"command": "git status"}, w.proj)
	want := w.call(t, []string{filepath.Join(dir, "rivumi"), "hook", "claude-code", "--socket", "none", "--audit", "off"}, p)
	var wg sync.WaitGroup
	outs := make([]outcome, 4)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = w.call(t, []string{filepath.Join(dir, "rivumi"), "hook", "claude-code", "--audit", "off"}, p)
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, pid := range startedPIDs(t, w.sock) {
			syscall.Kill(pid, syscall.SIGTERM)
		}
	})
	for i, o := range outs {
		if o.code != want.code || o.stdout != want.stdout {
			t.Errorf("cold call %d: exit %d %q; want exit %d %q", i, o.code, o.stdout, want.code, want.stdout)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for !answers(w.sock) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !answers(w.sock) {
		log, _ := os.ReadFile(w.sock + ".log")
		t.Fatalf("no server came up on %s:\n%s", w.sock, log)
	}
	if pids := startedPIDs(t, w.sock); len(pids) != 1 {
		t.Errorf("%d servers started (%v); want 1", len(pids), pids)
	}
	if fi, err := os.Stat(filepath.Dir(w.sock)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket directory: %v %v; want 0700", fi.Mode(), err)
	}
	// A warm call now: the thin client relays it.
	thin := w.call(t, []string{filepath.Join(dir, "rivumi-hook"), "claude-code", "--audit", "off"}, p)
	if thin.code != want.code || thin.stdout != want.stdout {
		t.Errorf("thin call: exit %d %q; want exit %d %q", thin.code, thin.stdout, want.code, want.stdout)
	}
	if n := relayed(t, w.sock); n < 1 {
		t.Errorf("the server relayed %d calls; want 1", n)
	}
	// Idle for 3 s: it exits and removes its socket.
	pid := startedPIDs(t, w.sock)[0]
	deadline = time.Now().Add(15 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("server %d still running after idling past 3 s", pid)
	}
	if _, err := os.Lstat(w.sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after idle exit: %v", err)
	}
	// Opted out: no server starts.
	os.Remove(w.sock + ".log")
	w.call(t, []string{filepath.Join(dir, "rivumi"), "hook", "claude-code", "--audit", "off", "--no-autostart"}, p)
	w.call(t, []string{filepath.Join(dir, "rivumi"), "hook", "claude-code", "--audit", "off"}, p, "RIVUMI_NO_AUTOSTART=1")
	time.Sleep(500 * time.Millisecond)
	if pids := startedPIDs(t, w.sock); len(pids) != 0 || answers(w.sock) {
		t.Errorf("opted out, yet a server started: %v", pids)
	}
}

// relayed reads rivumi_hook_relayed_total from the server's metrics.
func relayed(t *testing.T, sock string) int {
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /metrics HTTP/1.1\r\nHost: rivumi\r\nConnection: close\r\n\r\n")
	b, _ := io.ReadAll(c)
	m := regexp.MustCompile(`(?m)^rivumi_hook_relayed_total (\d+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no rivumi_hook_relayed_total in:\n%.2000s", b)
	}
	var n int
	fmt.Sscan(string(m[1]), &n)
	return n
}

// TestAutostartRefuses: no server is started in a directory others may
// enter or that another user owns, nor over another user's socket; the
// call is graded in-process all the same.
func TestAutostartRefuses(t *testing.T) {
	testenv.NeedUnixSockets(t)
	dir := binaries(t)
	cases := []struct {
		name  string
		root  bool
		setup func(t *testing.T, w *world)
	}{
		{"open directory", false, func(t *testing.T, w *world) {
			must(t, os.MkdirAll(filepath.Dir(w.sock), 0o755))
			must(t, os.Chmod(filepath.Dir(w.sock), 0o755))
		}},
		{"directory of another user", true, func(t *testing.T, w *world) {
			must(t, os.MkdirAll(filepath.Dir(w.sock), 0o700))
			must(t, os.Chown(filepath.Dir(w.sock), 65534, 65534))
		}},
		{"socket of another user", true, func(t *testing.T, w *world) {
			must(t, os.MkdirAll(filepath.Dir(w.sock), 0o700))
			ln, err := net.Listen("unix", w.sock)
			must(t, err)
			t.Cleanup(func() { ln.Close() })
			must(t, os.Chown(w.sock, 65534, 65534))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && os.Getuid() != 0 {
				t.Skip("needs root to make files of another user")
			}
			w := newWorld(t)
			w.autostartEnv("2s")
			tc.setup(t, w)
			p := payload("claude-code", "Bash", map[string]any{"command": "rm -rf /"}, w.proj)
			want := w.call(t, []string{filepath.Join(dir, "rivumi"), "hook", "claude-code", "--socket", "none", "--audit", "off"}, p)
			for _, bin := range [][]string{{filepath.Join(dir, "rivumi"), "hook"}, {filepath.Join(dir, "rivumi-hook")}} {
				o := w.call(t, append(bin, "claude-code", "--audit", "off"), p)
				if o.code != want.code || o.stdout != want.stdout {
					t.Errorf("%s: exit %d %q; want exit %d %q", bin[0], o.code, o.stdout, want.code, want.stdout)
				}
			}
			time.Sleep(700 * time.Millisecond)
			if pids := startedPIDs(t, w.sock); len(pids) != 0 {
				for _, pid := range pids {
					syscall.Kill(pid, syscall.SIGTERM)
				}
				t.Errorf("a server was started: %v", pids)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestAutostartedServerStopsWhenReplaced: a started server stops when
// rivumi is upgraded under it, so that hooks do not keep an old policy
// for as long as they call.
func TestAutostartedServerStopsWhenReplaced(t *testing.T) {
	testenv.NeedUnixSockets(t)
	src := binaries(t)
	dir := t.TempDir()
	for _, name := range []string{"rivumi", "rivumi-hook"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, name), b, 0o755))
	}
	w := newWorld(t)
	w.autostartEnv("40s") // checked every 10 s; the idle exit is further off
	p := payload("claude-code", "Bash", map[string]any{"command": "ls"}, w.proj)
	w.call(t, []string{filepath.Join(dir, "rivumi"), "hook", "claude-code", "--audit", "off"}, p)
	deadline := time.Now().Add(20 * time.Second)
	for !answers(w.sock) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	pids := startedPIDs(t, w.sock)
	if len(pids) != 1 || !answers(w.sock) {
		t.Fatalf("no server started: %v", pids)
	}
	t.Cleanup(func() { syscall.Kill(pids[0], syscall.SIGTERM) })
	// Upgrade: a new file at the path (rename over it, as installers do).
	b, err := os.ReadFile(filepath.Join(dir, "rivumi"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "rivumi.new"), b, 0o755))
	must(t, os.Rename(filepath.Join(dir, "rivumi.new"), filepath.Join(dir, "rivumi")))
	deadline = time.Now().Add(25 * time.Second)
	for alive(pids[0]) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	log, _ := os.ReadFile(w.sock + ".log")
	if alive(pids[0]) || !strings.Contains(string(log), "binary was replaced") {
		t.Errorf("server %d after the upgrade: alive %v; log:\n%s", pids[0], alive(pids[0]), log)
	}
}
