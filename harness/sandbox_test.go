//go:build unix

package harness_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rivumi/rivumi/harness"
)

// sandboxed returns a harness with the backend, skipping when it is not
// available here — except in CI (CI=true), where a skipped sandbox test
// would hide a broken wall, so it fails.
func sandboxed(t *testing.T, backend harness.Sandbox, cfg harness.Config) (*harness.Harness, string) {
	t.Helper()
	cfg.Sandbox = backend
	if cfg.Workspace == "" {
		cfg.Workspace = t.TempDir()
	}
	if cfg.Grader == nil {
		cfg.Grader = &fakeGrader{}
	}
	cfg.KillGrace = 300 * time.Millisecond
	h, err := harness.New(cfg)
	var su *harness.SandboxUnavailableError
	if errors.As(err, &su) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v (in CI a sandbox test must not be skipped: install it)", err)
		}
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := h.Sandbox(); got != backend {
		t.Fatalf("sandbox %v, want %v", got, backend)
	}
	return h, cfg.Workspace
}

// outsideDir returns a directory outside the workspace, the run root and
// /tmp (bwrap's /tmp is a private tmpfs, where a write would succeed for
// the wrong reason).
func outsideDir(t *testing.T) string {
	t.Helper()
	for _, base := range []string{"/var/tmp", os.Getenv("HOME")} {
		if base == "" {
			continue
		}
		d, err := os.MkdirTemp(base, "rivumi-sandbox-test-")
		if err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	t.Skip("no writable directory outside /tmp")
	return ""
}

// listen starts a TCP (or UDP) listener on 127.0.0.1 and returns its
// address and a function counting the connections (datagrams) it got.
func listen(t *testing.T, udp bool) (addr string, received func() int) {
	t.Helper()
	n := make(chan int, 1)
	n <- 0
	count := func() int { v := <-n; n <- v; return v }
	if udp {
		pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pc.Close() })
		go func() {
			buf := make([]byte, 64)
			for {
				if _, _, err := pc.ReadFrom(buf); err != nil {
					return
				}
				n <- <-n + 1
			}
		}()
		// Datagrams are not acknowledged: give one in flight time to land.
		return pc.LocalAddr().String(), func() int { time.Sleep(50 * time.Millisecond); return count() }
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n <- <-n + 1
			c.Close()
		}
	}()
	return ln.Addr().String(), func() int { time.Sleep(20 * time.Millisecond); return count() }
}

func TestSandboxWalls(t *testing.T) {
	for _, backend := range []harness.Sandbox{harness.SandboxNone, harness.SandboxBwrap, harness.SandboxLandlock} {
		t.Run(string(backend), func(t *testing.T) {
			h, ws := sandboxed(t, backend, harness.Config{})
			confined := backend != harness.SandboxNone
			run := func(argv ...string) harness.Result {
				t.Helper()
				res, err := h.Run(context.Background(), harness.Request{Argv: argv, Timeout: 20 * time.Second})
				if err != nil {
					t.Fatalf("%v: %v", argv, err)
				}
				if !res.Ran {
					t.Fatalf("%v did not run: %s", argv, res.Refusal)
				}
				return res
			}

			// Writing inside the workspace works.
			inside := filepath.Join(ws, "inside")
			if res := run(helper(t, "write", inside)...); res.ExitCode != 0 {
				t.Errorf("write in workspace: exit %d: %s", res.ExitCode, res.Stderr.String())
			}
			if _, err := os.Stat(inside); err != nil {
				t.Errorf("file written in workspace is missing: %v", err)
			}

			// Writing outside the workspace fails when confined.
			outside := filepath.Join(outsideDir(t), "outside")
			res := run(helper(t, "write", outside)...)
			_, statErr := os.Stat(outside)
			if confined && (res.ExitCode == 0 || statErr == nil) {
				t.Errorf("write outside the workspace succeeded under %s", backend)
			}
			if !confined && (res.ExitCode != 0 || statErr != nil) {
				t.Errorf("control: write outside failed without a sandbox: %s", res.Stderr.String())
			}

			// Network to listeners on the host fails when confined: TCP,
			// Multipath TCP and UDP.
			for _, probe := range []string{"dial", "dial-mptcp", "udp"} {
				addr, received := listen(t, probe == "udp")
				res := run(helper(t, probe, addr)...)
				// A datagram "sent" into bwrap's own network namespace
				// succeeds there; what matters is that the host never gets it.
				if confined && ((res.ExitCode == 0 && probe != "udp") || received() != 0) {
					t.Errorf("%s succeeded under %s (listener got %d)", probe, backend, received())
				}
				if !confined && (res.ExitCode != 0 || received() == 0) {
					t.Errorf("control: %s failed without a sandbox: %s", probe, res.Stderr.String())
				}
				t.Logf("%s %s: exit %d %s", backend, probe, res.ExitCode, strings.TrimSpace(res.Stderr.String()))
			}
		})
	}
}

// Under bwrap the PID namespace dies with the command: grandchildren that
// ignore SIGTERM do not survive a timeout.
func TestSandboxBwrapTimeoutKillsAll(t *testing.T) {
	h, ws := sandboxed(t, harness.SandboxBwrap, harness.Config{})
	token := "tok-" + strconv.Itoa(os.Getpid()) + "-bwrap"
	res, err := runWithin(t, 15*time.Second, h, context.Background(), harness.Request{
		Argv: helper(t, "ignore-term", filepath.Join(ws, "pids"), "2", token), Timeout: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut {
		t.Errorf("not timed out: %+v", res)
	}
	if !strings.Contains(res.Stdout.String(), "started") {
		t.Errorf("helper did not start: %s", res.Stderr.String())
	}
	if live := liveWithToken(token); len(live) > 0 {
		for _, p := range live {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Errorf("processes survived: %v", live)
	}
}
