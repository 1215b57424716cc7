//go:build linux

package harness_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rivumi/rivumi/harness"

	"github.com/rivumi/rivumi/internal/testenv"
)

// asUserEnv marks the re-run of the contract attacks as an unprivileged
// user (see TestContractAttacksAsUser).
const asUserEnv = "RIVUMI_CONTRACT_AS_USER"

// The sandbox contract, attacked from inside a command under every Linux
// backend: each attack must fail under bwrap and Landlock. Without a
// sandbox the harmless ones are run as a control, which they must pass —
// so the attack itself works and a broken wall would fail this test.
func TestContractAttacks(t *testing.T) {
	testenv.SkipInsideRun(t, "writes to /tmp and /var/tmp outside the run's directories (where these attacks plant their targets)")
	root := os.Geteuid() == 0
	ws0 := t.TempDir()
	outside := outsideDir(t)
	// A file in a hidden directory (/tmp, which the contract hides apart
	// from the workspace bound back) and, as root, in /root.
	hiddenDir, err := os.MkdirTemp("/tmp", "rivumi-contract-secret-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(hiddenDir) })
	secrets := []string{filepath.Join(hiddenDir, "secret")}
	if root {
		f, err := os.CreateTemp("/root", ".rivumi-contract-secret-")
		if err == nil {
			f.Close()
			t.Cleanup(func() { os.Remove(f.Name()) })
			secrets = append(secrets, f.Name())
		}
	}
	for _, s := range secrets {
		if err := os.WriteFile(s, []byte("marker, not a secret"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("orig\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Unix sockets on the host: a pathname one and an abstract one.
	sockPath := filepath.Join(outside, "host.sock")
	accepted := 0
	acceptedCh := make(chan int, 1)
	acceptedCh <- 0
	for _, addr := range []string{sockPath, "@rivumi-contract-" + strconv.Itoa(os.Getpid())} {
		ln, err := net.Listen("unix", addr)
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
				acceptedCh <- <-acceptedCh + 1
				c.Close()
			}
		}()
	}
	countAccepted := func() int { time.Sleep(20 * time.Millisecond); v := <-acceptedCh; acceptedCh <- v; return v - accepted }
	// A process outside the run, for ptrace and signals.
	self, _ := os.Executable()
	outsider := exec.Command(self, helperArg, "hold", "contract-outsider")
	if err := outsider.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { outsider.Process.Kill(); outsider.Wait() })
	outsiderPID := strconv.Itoa(outsider.Process.Pid)

	type attackCase struct {
		name string
		args func(ws string) []string
		// control: the attack works without a sandbox for this user.
		control bool
	}
	attacks := []attackCase{
		{"caps", nil, root},
		{"remount", nil, false},
		{"mount-tmpfs", func(ws string) []string { return []string{ws} }, false},
		{"userns", nil, true},
		{"setns", nil, false},
		{"netlink", nil, true},
		{"unix-connect", func(string) []string { return []string{sockPath} }, true},
		{"unix-connect", func(string) []string { return []string{"@rivumi-contract-" + strconv.Itoa(os.Getpid())} }, true},
		{"link", func(ws string) []string { return []string{victim, filepath.Join(ws, "link")} }, true},
		{"ptrace", func(string) []string { return []string{outsiderPID} }, true},
		{"kill", func(string) []string { return []string{outsiderPID} }, true},
	}
	for _, s := range secrets {
		attacks = append(attacks, attackCase{"read", func(string) []string { return []string{s} }, true})
	}
	_ = ws0
	for _, backend := range []harness.Sandbox{harness.SandboxNone, harness.SandboxBwrap, harness.SandboxLandlock} {
		t.Run(string(backend), func(t *testing.T) {
			h, ws := sandboxed(t, backend, harness.Config{})
			for _, a := range attacks {
				if backend == harness.SandboxNone && !a.control {
					continue
				}
				argv := helper(t, "attack", a.name)
				if a.args != nil {
					argv = append(argv, a.args(ws)...)
				}
				before := countAccepted()
				res, err := h.Run(context.Background(), harness.Request{Argv: argv, Timeout: 20 * time.Second})
				if err != nil {
					t.Fatalf("%s: %v", a.name, err)
				}
				if !res.Ran {
					t.Fatalf("%s did not run: %s", a.name, res.Refusal)
				}
				worked := res.ExitCode == 0
				if a.name == "unix-connect" && countAccepted() > before {
					worked = true
				}
				if a.name == "link" {
					if b, _ := os.ReadFile(victim); !bytes.Equal(b, []byte("orig\n")) {
						worked = true
						os.WriteFile(victim, []byte("orig\n"), 0o644)
					}
					os.Remove(filepath.Join(ws, "link"))
				}
				msg := strings.TrimSpace(res.Stderr.String())
				switch {
				case backend == harness.SandboxNone && !worked:
					t.Errorf("control: %s %v failed without a sandbox (so the test proves nothing): %s", a.name, argv[3:], msg)
				case backend != harness.SandboxNone && worked:
					t.Errorf("HOLE: %s %v worked under %s", a.name, argv[3:], backend)
				default:
					t.Logf("%s %v: exit %d %s", a.name, argv[3:], res.ExitCode, msg)
				}
			}

			// A process that leaves the run's session and drops its
			// environment marker does not outlive the run.
			if backend != harness.SandboxNone {
				pidfile := filepath.Join(ws, "escaped.pid")
				res, err := h.Run(context.Background(), harness.Request{
					Argv: helper(t, "escape", pidfile, "contract-escape"), Timeout: 20 * time.Second})
				if err != nil || !res.Ran {
					t.Fatalf("escape: %v %s", err, res.Refusal)
				}
				b, _ := os.ReadFile(pidfile)
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				if backend == harness.SandboxBwrap {
					// The pid is the namespace's; what counts is that no
					// process holding the token is left on the host.
					pid = 0
				}
				deadline := time.Now().Add(2 * time.Second)
				for time.Now().Before(deadline) && len(liveWithToken("contract-escape")) > 0 {
					time.Sleep(20 * time.Millisecond)
				}
				if live := liveWithToken("contract-escape"); len(live) > 0 || (pid > 0 && !gone(pid)) {
					for _, p := range live {
						syscall.Kill(p, syscall.SIGKILL)
					}
					t.Errorf("HOLE: an escaped process outlived the run under %s: %v", backend, live)
				}
			}
		})
	}
}

// The same attacks as an unprivileged user: the test binary re-runs
// TestContractAttacks as nobody (uid/gid 65534).
func TestContractAttacksAsUser(t *testing.T) {
	if os.Getenv(asUserEnv) != "" {
		t.Skip("already the unprivileged run")
	}
	testenv.SkipInsideRun(t, "setuid to another user and writes to /var/tmp")
	if os.Geteuid() != 0 {
		t.Skip("needs root to become another user (the attacks above ran as this user)")
	}
	if testing.Short() {
		t.Skip("short")
	}
	// The test binary sits in a directory only root may enter: copy it.
	dir, err := os.MkdirTemp("/var/tmp", "rivumi-contract-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	self, _ := os.Executable()
	bin := filepath.Join(dir, "harness.test")
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	in.Close()
	out.Close()
	cmd := exec.Command(bin, "-test.run", "^TestContractAttacks$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent", "TMPDIR=/tmp", asUserEnv + "=1", "CI=" + os.Getenv("CI")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	b, err := cmd.CombinedOutput()
	t.Logf("as uid 65534:\n%s", b)
	if err != nil {
		t.Fatalf("the contract attacks failed as an unprivileged user: %v", err)
	}
	if !bytes.Contains(b, []byte("--- PASS: TestContractAttacks")) {
		t.Fatal("the unprivileged run did not pass TestContractAttacks")
	}
}

// A bwrap earlier on PATH is never the one used: bubblewrap comes from
// the system directories, and the audit names it.
func TestFakeBwrapOnPathIsNotUsed(t *testing.T) {
	fake := t.TempDir()
	marker := filepath.Join(outsideDir(t), "fake-bwrap-ran")
	script := "#!/bin/sh\ntouch " + marker + "\nwhile [ \"$1\" != -- ]; do shift; done; shift; exec \"$@\"\n"
	if err := os.WriteFile(filepath.Join(fake, "bwrap"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h, _ := sandboxed(t, harness.SandboxBwrap, harness.Config{BaseEnv: []string{"PATH=" + fake + ":/usr/bin:/bin"}})
	res, err := h.Run(context.Background(), harness.Request{Argv: []string{"true"}, Timeout: 20 * time.Second})
	if err != nil || !res.Ran {
		t.Fatalf("%v %s", err, res.Refusal)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the bwrap on PATH ran")
	}
	if strings.HasPrefix(res.SandboxDetail, fake) || !strings.Contains(res.SandboxDetail, "sha256:") {
		t.Errorf("sandbox detail %q", res.SandboxDetail)
	}
}

// Config.ReadOnly: readable inside the sandbox even under a hidden
// directory (/tmp), never writable.
func TestSandboxReadOnlyPaths(t *testing.T) {
	ro := t.TempDir() // under /tmp: hidden unless granted
	file := filepath.Join(ro, "f")
	if err := os.WriteFile(file, []byte("readable"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, backend := range []harness.Sandbox{harness.SandboxBwrap, harness.SandboxLandlock} {
		t.Run(string(backend), func(t *testing.T) {
			h, _ := sandboxed(t, backend, harness.Config{ReadOnly: []string{ro}})
			res, err := h.Run(context.Background(), harness.Request{Argv: helper(t, "attack", "read", file), Timeout: 20 * time.Second})
			if err != nil || res.ExitCode != 0 {
				t.Errorf("read of a read-only path: %v exit %d %s", err, res.ExitCode, res.Stderr.String())
			}
			res, err = h.Run(context.Background(), harness.Request{Argv: helper(t, "write", filepath.Join(ro, "new")), Timeout: 20 * time.Second})
			if err != nil || res.ExitCode == 0 {
				t.Errorf("write into a read-only path: %v exit %d", err, res.ExitCode)
			}
		})
	}
}

// Config.Writable opens one more directory for writing, even inside a
// hidden one (/tmp), under each backend; a sibling stays closed; a
// relative or root path is refused.
func TestSandboxWritableDirs(t *testing.T) {
	for _, sb := range []harness.Sandbox{harness.SandboxBwrap, harness.SandboxLandlock} {
		t.Run(string(sb), func(t *testing.T) {
			extra, other := t.TempDir(), t.TempDir()
			h, ws := sandboxed(t, sb, harness.Config{Writable: []string{extra}})
			script := "echo x > " + extra + "/in; echo x > " + other + "/out 2>/dev/null; true"
			res, err := h.Run(context.Background(), harness.Request{Argv: []string{"/bin/sh", "-c", script}, Dir: ws, Timeout: 20 * time.Second})
			if err != nil || !res.Ran {
				t.Fatalf("%v %s", err, res.Refusal)
			}
			if _, err := os.Stat(extra + "/in"); err != nil {
				t.Error("the writable directory could not be written")
			}
			if _, err := os.Stat(other + "/out"); err == nil {
				t.Error("a directory not named writable was written")
			}
		})
	}
	for _, bad := range []string{"rel", "/", "/a/../b"} {
		if _, err := harness.New(harness.Config{Grader: &fakeGrader{}, Writable: []string{bad}}); err == nil {
			t.Errorf("writable %q accepted", bad)
		}
	}
}

// Request.ReadOnly makes paths inside the workspace read-only under bwrap
// (mounted on top of the writable workspace: neither written, nor
// renamed, nor removed), the rest of the workspace staying writable; any
// other backend refuses such a request rather than run it without.
func TestSandboxRequestReadOnlyInsideWorkspace(t *testing.T) {
	t.Run("bwrap", func(t *testing.T) {
		h, ws := sandboxed(t, harness.SandboxBwrap, harness.Config{})
		for p, s := range map[string]string{"keep.txt": "keep\n", "oracle/f": "f\n", "free.txt": "free\n"} {
			os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755)
			if err := os.WriteFile(filepath.Join(ws, p), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		script := "echo x > keep.txt; echo x > oracle/new; mv keep.txt moved; rm -f oracle/f; mv oracle gone; echo y > free.txt; echo z > fresh.txt; true"
		res, err := h.Run(context.Background(), harness.Request{Argv: []string{"/bin/sh", "-c", script}, Dir: ws, Timeout: 20 * time.Second,
			ReadOnly: []string{filepath.Join(ws, "keep.txt"), filepath.Join(ws, "oracle"), filepath.Join(ws, "missing")}})
		if err != nil || !res.Ran {
			t.Fatalf("%v %s", err, res.Refusal)
		}
		for p, want := range map[string]string{"keep.txt": "keep\n", "oracle/f": "f\n", "free.txt": "y\n", "fresh.txt": "z\n"} {
			if b, err := os.ReadFile(filepath.Join(ws, p)); err != nil || string(b) != want {
				t.Errorf("%s = %q, %v; want %q", p, b, err, want)
			}
		}
		for _, p := range []string{"oracle/new", "moved", "gone"} {
			if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
				t.Errorf("%s exists: a read-only path was written, renamed or replaced", p)
			}
		}
	})
	t.Run("landlock", func(t *testing.T) {
		h, ws := sandboxed(t, harness.SandboxLandlock, harness.Config{})
		res, err := h.Run(context.Background(), harness.Request{Argv: []string{"/bin/true"}, Dir: ws, Timeout: 20 * time.Second,
			ReadOnly: []string{filepath.Join(ws, "x")}})
		if err == nil || res.Ran || !strings.Contains(err.Error(), "need the bwrap sandbox") {
			t.Errorf("Run = %v, ran %v; want a refusal naming bwrap", err, res.Ran)
		}
	})
}

// Config.CacheDir: the caches point into it, a sandboxed command writes it,
// and what one run leaves there the next run finds (a warm build); a cache
// directory that is a symbolic link or someone else's is refused.
func TestSandboxCacheDirPersists(t *testing.T) {
	for _, sb := range []harness.Sandbox{harness.SandboxBwrap, harness.SandboxLandlock} {
		t.Run(string(sb), func(t *testing.T) {
			cache := filepath.Join(t.TempDir(), "project-cache")
			h, ws := sandboxed(t, sb, harness.Config{CacheDir: cache})
			run := func(script string) string {
				t.Helper()
				res, err := h.Run(context.Background(), harness.Request{Argv: []string{"/bin/sh", "-c", script}, Dir: ws, Timeout: 20 * time.Second})
				if err != nil || !res.Ran || res.ExitCode != 0 {
					t.Fatalf("%v %s %s", err, res.Refusal, res.Stderr.String())
				}
				return res.Stdout.String()
			}
			got := run(`echo "$GOCACHE $XDG_CACHE_HOME $PIP_CACHE_DIR $npm_config_cache"; mkdir -p "$GOCACHE" && echo warm > "$GOCACHE/entry"`)
			want := cache + "/go-build " + cache + " " + cache + "/pip " + cache + "/npm\n"
			if got != want {
				t.Errorf("cache variables %q, want %q", got, want)
			}
			if got := run(`cat "$GOCACHE/entry"`); got != "warm\n" {
				t.Errorf("the second run read %q from the cache, want what the first wrote", got)
			}
			if fi, err := os.Stat(cache); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("cache directory: %v %v, want mode 0700", fi, err)
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		dir := t.TempDir()
		link := filepath.Join(dir, "link")
		if err := os.Symlink(t.TempDir(), link); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "file")
		os.WriteFile(file, nil, 0o600)
		for _, c := range []string{link, file} {
			h, ws := sandboxed(t, harness.SandboxLandlock, harness.Config{CacheDir: c})
			res, err := h.Run(context.Background(), harness.Request{Argv: []string{"/bin/true"}, Dir: ws, Timeout: 20 * time.Second})
			if err == nil && res.Ran {
				t.Errorf("cache directory %s accepted", c)
			}
		}
		if _, err := harness.New(harness.Config{Grader: &fakeGrader{}, CacheDir: "rel"}); err == nil {
			t.Error("a relative cache directory accepted")
		}
	})
}

// A file moves into another directory of the workspace or of TMPDIR
// (rename(2), which mv hides by copying on EXDEV): a Landlock domain of
// its own for TCP or for scopes refused every such rename, since Landlock
// denies reparenting in a domain that does not grant REFER.
func TestSandboxRenameAcrossDirectories(t *testing.T) {
	for _, sb := range []harness.Sandbox{harness.SandboxBwrap, harness.SandboxLandlock} {
		for _, net := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/network=%v", sb, net), func(t *testing.T) {
				h, ws := sandboxed(t, sb, harness.Config{AllowNetwork: net})
				// python's os.rename is rename(2) with no fallback; so is
				// perl's; the shell's mv is not. Use whichever exists.
				script := `set -e; for d in "$PWD" "$TMPDIR"; do cd "$d"; echo x > f; mkdir -p sub; ` +
					`if command -v python3 >/dev/null; then python3 -c 'import os; os.rename("f", "sub/f")'; ` +
					`else perl -e 'rename("f", "sub/f") or die "rename: $!\n"'; fi; test -f sub/f; done; echo renamed`
				res, err := h.Run(context.Background(), harness.Request{Argv: []string{"/bin/sh", "-c", script}, Dir: ws, Timeout: 20 * time.Second})
				if err != nil || !res.Ran || res.ExitCode != 0 || !strings.Contains(res.Stdout.String(), "renamed") {
					t.Fatalf("rename into a subdirectory: %v %s exit %d\n%s", err, res.Refusal, res.ExitCode, res.Stderr.String())
				}
			})
		}
	}
}
