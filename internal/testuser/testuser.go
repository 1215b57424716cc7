//go:build linux

// Package testuser runs code as another local user in tests: the
// boundary tests of the local servers (the hook's per-user server, `rivumi
// serve --socket`, `rivumi mcp`) prove that another user can neither
// reach them nor stand in for them. It needs root (the tests skip
// without it): a child process gets another uid through
// SysProcAttr.Credential, so the user needs no entry in /etc/passwd.
//
// What runs as the other user is [Probe]'s program (./probe), built once
// per test binary into a directory under /var/tmp that every user may
// enter (a test's own temporary directories are private to root).
package testuser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// Nobody is the uid of the unprivileged user tests run as (nobody), and
// Stranger a uid no account has: the other user when the victim is
// Nobody.
const (
	Nobody   = 65534
	Stranger = 4242
)

// NeedRoot skips the test unless it runs as root.
func NeedRoot(t testing.TB) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root: it runs processes as other users")
	}
	if testing.Short() {
		t.Skip("builds a probe and runs it as other users")
	}
}

var (
	once     sync.Once
	probe    string
	buildErr error
)

// Shared returns a directory under /var/tmp (mode 0755) that every user
// may enter, for the test binary's whole run; the probe lives there.
// Files a test copies in must be removed by the test (or they stay with
// the directory until [Cleanup]).
func Shared(t testing.TB) string {
	t.Helper()
	NeedRoot(t)
	build(t)
	return shareDir
}

// Probe returns the path of the probe program, built on first use.
func Probe(t testing.TB) string {
	t.Helper()
	NeedRoot(t)
	build(t)
	return probe
}

func build(t testing.TB) {
	once.Do(func() {
		shareDir, buildErr = os.MkdirTemp("/var/tmp", "rivumi-testuser")
		if buildErr != nil {
			return
		}
		if buildErr = os.Chmod(shareDir, 0o755); buildErr != nil {
			return
		}
		probe = filepath.Join(shareDir, "probe")
		out, err := exec.Command("go", "build", "-o", probe, "github.com/rivumi/rivumi/internal/testuser/probe").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build probe: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

// As sets c to run as uid (its primary group the same number, no
// supplementary groups); uid 0 leaves c as it is.
func As(c *exec.Cmd, uid int) *exec.Cmd {
	if uid == 0 {
		return c
	}
	if c.SysProcAttr == nil {
		c.SysProcAttr = &syscall.SysProcAttr{}
	}
	c.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), Groups: []uint32{}}
	return c
}

// Outcome is what a probe reports.
type Outcome struct {
	// Connected: the connection was made; Answered: an answer came
	// (an HTTP status, or a relayed call's result), Status and Body.
	Connected bool   `json:"connected"`
	Answered  bool   `json:"answered"`
	Status    int    `json:"status,omitempty"`
	Body      string `json:"body,omitempty"`
	Err       string `json:"err,omitempty"`
	// UID is the uid the probe ran as.
	UID int `json:"uid"`
}

// Run runs the probe as uid with args (see ./probe) and returns what it
// reports; it fails the test if the probe did not run as uid.
func Run(t testing.TB, uid int, args ...string) Outcome {
	t.Helper()
	c := As(exec.Command(Probe(t), args...), uid)
	c.Dir = "/"
	var so, se bytes.Buffer
	c.Stdout, c.Stderr = &so, &se
	if err := c.Run(); err != nil {
		t.Fatalf("probe %q as uid %d: %v\n%s%s", args, uid, err, so.Bytes(), se.Bytes())
	}
	var o Outcome
	if err := json.Unmarshal(so.Bytes(), &o); err != nil {
		t.Fatalf("probe %q: %v: %s", args, err, so.Bytes())
	}
	if o.UID != uid {
		t.Fatalf("probe ran as uid %d, want %d", o.UID, uid)
	}
	return o
}

// Fake starts the probe as uid playing a server on sock that answers
// allow to everything, logging each connection to log; it returns once
// the server listens and stops it when the test ends.
func Fake(t testing.TB, uid int, sock, log string) {
	t.Helper()
	c := As(exec.Command(Probe(t), "fake", sock, log), uid)
	c.Dir = "/"
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var se bytes.Buffer
	c.Stderr = &se
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	line := make([]byte, 64)
	n, _ := out.Read(line)
	if string(bytes.TrimSpace(line[:n])) != "ready" {
		t.Fatalf("fake server as uid %d on %s: %q %s", uid, sock, line[:n], se.Bytes())
	}
}
