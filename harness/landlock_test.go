//go:build linux

package harness

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/verdict"
)

// Landlock's own TCP rules, without the seccomp socket filter on top:
// connect to a listener on the host is refused by Landlock (EACCES at
// connect, not at socket).
func TestLandlockTCPRuleAlone(t *testing.T) {
	grader := verdict.GraderFunc(func(context.Context, verdict.Request) (verdict.Verdict, error) {
		return verdict.Verdict{Decision: verdict.Allow}, nil
	})
	h, err := New(Config{Grader: grader, Sandbox: SandboxLandlock, Workspace: t.TempDir()})
	var su *SandboxUnavailableError
	if errors.As(err, &su) {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	h.noSeccomp = true
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	self, _ := os.Executable()
	// "rivumi-test-helper dial ADDR" is served by TestMain in the external tests.
	res, err := h.Run(context.Background(), Request{Argv: []string{self, "rivumi-test-helper", "dial", ln.Addr().String()}})
	if err != nil {
		t.Fatal(err)
	}
	msg := res.Stderr.String()
	if res.ExitCode == 0 || !strings.Contains(msg, "connect: permission denied") {
		t.Errorf("dial under Landlock alone: exit %d, %q; want connect refused by Landlock", res.ExitCode, msg)
	}
}

// A program whose main does not call MaybeRunSandboxChild never runs the
// target: the run fails with SandboxUnavailableError.
func TestLandlockHelperMissing(t *testing.T) {
	grader := verdict.GraderFunc(func(context.Context, verdict.Request) (verdict.Verdict, error) {
		return verdict.Verdict{Decision: verdict.Allow}, nil
	})
	ws := t.TempDir()
	h, err := New(Config{Grader: grader, Sandbox: SandboxLandlock, Workspace: ws})
	if err != nil {
		t.Skip(err)
	}
	h.sandbox.self = "/bin/true" // exits 0 without the handshake
	res, err := h.Run(context.Background(), Request{Argv: []string{"touch", ws + "/marker"}})
	var su *SandboxUnavailableError
	if !errors.As(err, &su) || !strings.Contains(su.Reason, "MaybeRunSandboxChild") || res.Ran {
		t.Errorf("err %v, ran %v; want SandboxUnavailableError naming MaybeRunSandboxChild", err, res.Ran)
	}
	if _, err := os.Stat(ws + "/marker"); !os.IsNotExist(err) {
		t.Error("target ran")
	}
}
