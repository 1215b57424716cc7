//go:build unix

package harness_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/harness"
)

// A command whose processes double-fork into sessions of their own: after
// a timeout and after a normal exit, the harness finds them by the run's
// marker, kills them, and says so in the result and the audit entry.
func TestEscapedProcessesAreFoundAndKilled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("escaped processes are found through /proc")
	}
	for _, sb := range []harness.Sandbox{harness.SandboxNone, harness.SandboxLandlock, harness.SandboxBwrap} {
		for _, then := range []string{"sleep", "exit"} {
			t.Run(string(sb)+"/"+then, func(t *testing.T) {
				logPath := filepath.Join(t.TempDir(), "audit.jsonl")
				log, err := audit.Open(logPath, audit.WithoutSync())
				if err != nil {
					t.Fatal(err)
				}
				defer log.Close()
				ws := t.TempDir()
				h, err := harness.New(harness.Config{Grader: &fakeGrader{}, Workspace: ws, Sandbox: sb,
					KillGrace: 300 * time.Millisecond, Audit: log})
				var su *harness.SandboxUnavailableError
				if errors.As(err, &su) {
					t.Skip(err)
				}
				if err != nil {
					t.Fatal(err)
				}
				pidfile := filepath.Join(ws, "pids")
				token := "tok-" + strconv.Itoa(os.Getpid()) + "-daemon-" + string(sb) + "-" + then
				t.Cleanup(func() {
					for _, pid := range liveWithToken(token) {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				})
				const n = 4
				timeout := 20 * time.Second // not reached: the helper exits
				if then == "sleep" {
					timeout = 3 * time.Second // reached: the helper sleeps
				}
				res, err := runWithin(t, 30*time.Second, h, context.Background(), harness.Request{
					Argv: helper(t, "daemonize", pidfile, strconv.Itoa(n), then, token), Timeout: timeout})
				if err != nil {
					t.Fatal(err)
				}
				if then == "sleep" && !res.TimedOut {
					t.Errorf("not timed out: %+v", res)
				}
				b, _ := os.ReadFile(pidfile)
				pids := strings.Fields(string(b))
				if len(pids) != n {
					t.Fatalf("helper recorded %d pids, want %d", len(pids), n)
				}
				for _, p := range pids {
					pid, _ := strconv.Atoi(p)
					// (bwrap's pids are its namespace's: the token check below covers it)
					if sb != harness.SandboxBwrap && !gone(pid) {
						t.Errorf("escaped process %d still runs", pid)
					}
				}
				if live := liveWithToken(token); len(live) > 0 {
					t.Errorf("processes of the run still alive: %v", live)
				}
				// bwrap's PID namespace dies with the command, and Landlock's
				// helper, their subreaper, kills them before it exits: only
				// without a sandbox do they leave the tree (and are found by
				// the marker they kept).
				want := 0
				if sb == harness.SandboxNone {
					want = n
				}
				if len(res.Escaped) != want {
					t.Fatalf("Escaped lists %d processes, want %d: %+v", len(res.Escaped), want, res.Escaped)
				}
				for _, p := range res.Escaped {
					if !p.Killed || !strings.Contains(strings.Join(p.Argv, " "), token) {
						t.Errorf("escaped %+v: want killed, argv with the token", p)
					}
				}
				if msg := harness.DescribeEscaped(res.Escaped); want > 0 && !strings.Contains(msg, strconv.Itoa(n)+" processes of the run outlived it") {
					t.Errorf("message %q", msg)
				}
				es, err := audit.ReadFile(logPath)
				if err != nil || len(es) != 2 || es[1].Kind != audit.KindRun || len(es[1].Escaped) != want {
					t.Fatalf("audit: %v, %+v", err, es)
				}
			})
		}
	}
}
