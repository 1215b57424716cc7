//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rivumi/rivumi/internal/testuser"

	"github.com/rivumi/rivumi/internal/testenv"
)

// The trust boundary of the local servers, proven with two users: the
// victim, whose hook calls and servers these are, and another local user
// (the attacker). Each test runs twice: as root against nobody, and as
// nobody against a uid no account has. The test process is root and
// runs both sides as child processes with their own uid.

// pair is a victim and the other user.
type pair struct{ victim, other int }

func (p pair) String() string { return fmt.Sprintf("victim %d, other %d", p.victim, p.other) }

func pairs(t *testing.T) []pair {
	testuser.NeedRoot(t)
	return []pair{{0, testuser.Nobody}, {testuser.Nobody, testuser.Stranger}}
}

// victimBins returns the binaries where the victim may run them.
func victimBins(t *testing.T, uid int) string {
	dir := binaries(t)
	if uid == 0 {
		return dir
	}
	shared := filepath.Join(testuser.Shared(t), "bin")
	if _, err := os.Stat(shared); err == nil {
		return shared
	}
	must(t, os.Mkdir(shared, 0o755))
	for _, name := range []string{"rivumi", "rivumi-hook"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(shared, name), b, 0o755))
	}
	return shared
}

// victimWorld is newWorld, owned by the victim; its base directory is
// reachable by everyone (0711) so that the other user can try.
func victimWorld(t *testing.T, uid int) *world {
	w := newWorld(t)
	base := filepath.Dir(w.home)
	must(t, filepath.Walk(base, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	}))
	must(t, os.Chmod(base, 0o711))
	return w
}

// as runs argv as uid in w (as w.call does).
func (w *world) as(t *testing.T, uid int, argv []string, payload string, extraEnv ...string) outcome {
	t.Helper()
	c := testuserCmd(uid, argv)
	c.Env = append(append([]string(nil), w.env...), extraEnv...)
	c.Dir = w.proj
	c.Stdin = strings.NewReader(payload)
	var so, se bytes.Buffer
	c.Stdout, c.Stderr = &so, &se
	err := c.Run()
	o := outcome{stdout: so.String(), stderr: se.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		o.code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return o
}

func testuserCmd(uid int, argv []string) *exec.Cmd {
	return testuser.As(exec.Command(argv[0], argv[1:]...), uid)
}

// start starts argv as uid in w and returns it and its stderr, stopped
// (SIGINT) when the test ends.
func (w *world) start(t *testing.T, uid int, argv []string, extraEnv ...string) (*exec.Cmd, *lockedBuffer) {
	t.Helper()
	c := testuserCmd(uid, argv)
	c.Env = append(append([]string(nil), w.env...), extraEnv...)
	c.Dir = w.proj
	stderr := &lockedBuffer{}
	c.Stderr = stderr
	must(t, c.Start())
	t.Cleanup(func() {
		c.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			c.Process.Kill()
			<-done
		}
	})
	return c, stderr
}

// lockedBuffer is a stderr read while the process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// waitFor polls ok for up to 20 s.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// owner is the uid owning path (not followed).
func owner(t *testing.T, path string) (int, os.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	must(t, err)
	return int(fi.Sys().(*syscall.Stat_t).Uid), fi.Mode()
}

// assertPrivateSocket: the other user cannot connect to sock; when the
// socket and its directories are opened to everyone (what a umask race
// or a careless chmod would do), the other user connects but gets no
// answer, neither to HTTP nor to a relayed call, while the victim does.
func assertPrivateSocket(t *testing.T, p pair, sock string, relay bool, httpPath string) {
	t.Helper()
	if uid, mode := owner(t, sock); uid != p.victim || mode.Perm() != 0o600 {
		t.Errorf("%s: owner %d mode %v; want %d and 0600", sock, uid, mode, p.victim)
	}
	if o := testuser.Run(t, p.other, "connect", sock); o.Connected {
		t.Errorf("uid %d connected to %s", p.other, sock)
	}
	// The second wall: the server itself refuses another user's process.
	must(t, os.Chmod(sock, 0o666))
	for d := filepath.Dir(sock); d != "/" && d != "/tmp"; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		must(t, err)
		must(t, os.Chmod(d, fi.Mode().Perm()|0o011))
	}
	if relay {
		if o := testuser.Run(t, p.other, "relay", sock); !o.Connected || o.Answered {
			t.Errorf("relayed call of uid %d on an opened %s: %+v; want connected and no answer", p.other, sock, o)
		}
		if o := testuser.Run(t, p.victim, "relay", sock); !o.Answered {
			t.Errorf("relayed call of the victim %d: %+v; want an answer", p.victim, o)
		}
	}
	if o := testuser.Run(t, p.other, "http-unix", sock, httpPath); !o.Connected || o.Answered {
		t.Errorf("HTTP GET %s of uid %d on an opened %s: %+v; want connected and no answer", httpPath, p.other, sock, o)
	}
	if o := testuser.Run(t, p.victim, "http-unix", sock, httpPath); !o.Answered {
		t.Errorf("HTTP GET %s of the victim %d: %+v; want an answer", httpPath, p.victim, o)
	}
}

// TestBoundaryServeSocket: `rivumi serve --socket` and the server a hook
// call starts are the victim's alone.
func TestBoundaryServeSocket(t *testing.T) {
	testenv.NeedUnixSockets(t)
	for _, p := range pairs(t) {
		t.Run(p.String(), func(t *testing.T) {
			bin := victimBins(t, p.victim)
			w := victimWorld(t, p.victim)
			w.start(t, p.victim, []string{filepath.Join(bin, "rivumi"), "serve", "--socket=" + w.sock, "--audit", "off"})
			waitFor(t, "rivumi serve", func() bool { return answers(w.sock) })
			assertPrivateSocket(t, p, w.sock, true, "/healthz")
		})
		t.Run(p.String()+"/autostart", func(t *testing.T) {
			bin := victimBins(t, p.victim)
			w := victimWorld(t, p.victim)
			w.autostartEnv("20s")
			pl := payload("claude-code", "Bash", map[string]any{"command": "ls"}, w.proj)
			w.as(t, p.victim, []string{filepath.Join(bin, "rivumi"), "hook", "claude-code", "--audit", "off"}, pl)
			waitFor(t, "the started server", func() bool { return answers(w.sock) })
			t.Cleanup(func() {
				for _, pid := range startedPIDs(t, w.sock) {
					syscall.Kill(pid, syscall.SIGTERM)
				}
			})
			if uid, mode := owner(t, filepath.Dir(w.sock)); uid != p.victim || mode.Perm() != 0o700 {
				t.Errorf("socket directory: owner %d mode %v; want %d and 0700", uid, mode, p.victim)
			}
			assertPrivateSocket(t, p, w.sock, true, "/healthz")
		})
	}
}

// gitRepo makes w.proj a git repository with one commit and returns it.
func gitRepo(t *testing.T, w *world, uid int) string {
	t.Helper()
	must(t, os.RemoveAll(filepath.Join(w.proj, ".git")))
	must(t, os.WriteFile(filepath.Join(w.proj, "README"), []byte("hello\n"), 0o644))
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "README"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init"},
	} {
		c := exec.Command("git", append([]string{"-C", w.proj, "-c", "safe.directory=*"}, args...)...)
		c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	out, err := exec.Command("git", "-C", w.proj, "-c", "safe.directory=*", "rev-parse", "HEAD").Output()
	must(t, err)
	must(t, filepath.Walk(w.proj, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	}))
	runs := filepath.Join(filepath.Dir(w.home), "runs")
	must(t, os.Mkdir(runs, 0o700))
	must(t, os.Chown(runs, uid, uid))
	return strings.TrimSpace(string(out))
}

// mcpArgs are the flags that prepare a workspace for `rivumi mcp`.
func mcpArgs(w *world, bin, sha string) []string {
	return []string{filepath.Join(bin, "rivumi"), "mcp", "-prepare", "-source", w.proj, "-commit", sha,
		"-run-root", filepath.Join(filepath.Dir(w.home), "runs"), "-name", "b", "-sandbox", "none"}
}

// TestBoundaryMCP: `rivumi mcp -unix` is the victim's alone; `-http`
// answers no request without the bearer token, with a Host that is not
// a loopback name, or from another origin.
func TestBoundaryMCP(t *testing.T) {
	testenv.NeedUnixSockets(t)
	for _, p := range pairs(t) {
		t.Run(p.String()+"/unix", func(t *testing.T) {
			bin := victimBins(t, p.victim)
			w := victimWorld(t, p.victim)
			sha := gitRepo(t, w, p.victim)
			sock := filepath.Join(filepath.Dir(w.sock), "mcp.sock")
			must(t, os.Mkdir(filepath.Dir(sock), 0o700))
			must(t, os.Chown(filepath.Dir(sock), p.victim, p.victim))
			_, stderr := w.start(t, p.victim, append(mcpArgs(w, bin, sha), "-unix", sock))
			waitFor(t, "rivumi mcp -unix: "+stderr.String(), func() bool { return answers(sock) })
			assertPrivateSocket(t, p, sock, false, "/mcp")
		})
		t.Run(p.String()+"/http", func(t *testing.T) {
			bin := victimBins(t, p.victim)
			w := victimWorld(t, p.victim)
			sha := gitRepo(t, w, p.victim)
			tokenFile := filepath.Join(w.home, "mcp.token")
			_, stderr := w.start(t, p.victim, append(mcpArgs(w, bin, sha), "-http", "127.0.0.1:0", "-token-file", tokenFile))
			re := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+/mcp)`)
			var url string
			waitFor(t, "rivumi mcp -http", func() bool {
				m := re.FindStringSubmatch(stderr.String())
				if m != nil {
					url = m[1]
				}
				return m != nil
			})
			tok, err := os.ReadFile(tokenFile)
			must(t, err)
			if uid, mode := owner(t, tokenFile); uid != p.victim || mode.Perm() != 0o600 {
				t.Errorf("token file: owner %d mode %v; want %d and 0600", uid, mode, p.victim)
			}
			bearer := "Authorization: Bearer " + strings.TrimSpace(string(tok))
			for _, c := range []struct {
				name    string
				uid     int
				headers []string
				want    int
			}{
				{"no token", p.other, nil, 401},
				{"another token", p.other, []string{"Authorization: Bearer 0123456789abcdef"}, 401},
				{"token as the victim, no token", p.victim, nil, 401},
				{"token, another Host", p.victim, []string{bearer, "Host: evil.example:80"}, 403},
				{"token, cross-origin", p.victim, []string{bearer, "Origin: https://evil.example", "Sec-Fetch-Site: cross-site"}, 403},
				{"token", p.victim, []string{bearer}, 400}, // reaches the MCP handler: an empty JSON-RPC message
			} {
				o := testuser.Run(t, c.uid, append([]string{"http", "POST", url}, c.headers...)...)
				if o.Status != c.want {
					t.Errorf("%s: %+v; want status %d", c.name, o, c.want)
				}
			}
		})
	}
}

// fakeLog reads what a fake server saw.
func fakeLog(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// TestBoundaryPlantedSocket: a server that answers allow to everything,
// run by the other user at the path the victim's hook calls look for
// (in XDG_RUNTIME_DIR, or under TMPDIR, before the victim's first call),
// is never called: neither the thin client nor the full binary connects
// to it (a relayed call carries the environment), the answers are the
// in-process ones, and no server is started in its place. The same fake
// run by the victim in the victim's own directory is believed (the
// control), and one bound by the other user under a socket file the
// victim owns is refused by its peer's credentials.
func TestBoundaryPlantedSocket(t *testing.T) {
	testenv.NeedUnixSockets(t)
	for _, p := range pairs(t) {
		t.Run(p.String(), func(t *testing.T) { plantedSocket(t, p) })
	}
}

func plantedSocket(t *testing.T, p pair) {
	bin := victimBins(t, p.victim)
	shared := testuser.Shared(t)
	// A directory like /tmp (root, 1777), fresh for each case.
	sticky := func(t *testing.T) string {
		d, err := os.MkdirTemp(shared, "tmp")
		must(t, err)
		must(t, os.Chmod(d, 0o777|os.ModeSticky))
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	// mkdirAs makes dir owned by uid with mode.
	mkdirAs := func(t *testing.T, dir string, uid int, mode os.FileMode) {
		must(t, os.Mkdir(dir, mode))
		must(t, os.Chmod(dir, mode))
		must(t, os.Chown(dir, uid, uid))
	}
	type env struct {
		vars []string // XDG_RUNTIME_DIR or TMPDIR
		sock string   // where the fake listens
	}
	cases := []struct {
		name    string
		believe bool
		// connects: the clients connect (the socket file passes) and
		// refuse the peer before sending a byte.
		connects bool
		setup    func(t *testing.T, fakeLog string) env
	}{
		{"XDG_RUNTIME_DIR like /tmp", false, false, func(t *testing.T, log string) env {
			d := sticky(t)
			s := filepath.Join(d, "rivumi.sock")
			testuser.Fake(t, p.other, s, log)
			return env{[]string{"XDG_RUNTIME_DIR=" + d}, s}
		}},
		{"XDG_RUNTIME_DIR of the other user", false, false, func(t *testing.T, log string) env {
			d := filepath.Join(sticky(t), "run")
			mkdirAs(t, d, p.other, 0o755)
			s := filepath.Join(d, "rivumi.sock")
			testuser.Fake(t, p.other, s, log)
			return env{[]string{"XDG_RUNTIME_DIR=" + d}, s}
		}},
		{"TMPDIR: the other user made rivumi-UID open", false, false, func(t *testing.T, log string) env {
			d := sticky(t)
			sd := filepath.Join(d, fmt.Sprintf("rivumi-%d", p.victim))
			mkdirAs(t, sd, p.other, 0o777)
			s := filepath.Join(sd, "serve.sock")
			testuser.Fake(t, p.other, s, log)
			return env{[]string{"TMPDIR=" + d}, s}
		}},
		{"TMPDIR: the other user made rivumi-UID 0755", false, false, func(t *testing.T, log string) env {
			d := sticky(t)
			sd := filepath.Join(d, fmt.Sprintf("rivumi-%d", p.victim))
			mkdirAs(t, sd, p.other, 0o755)
			s := filepath.Join(sd, "serve.sock")
			testuser.Fake(t, p.other, s, log)
			return env{[]string{"TMPDIR=" + d}, s}
		}},
		{"TMPDIR: rivumi-UID a link to the other user's directory", false, false, func(t *testing.T, log string) env {
			d := sticky(t)
			od := filepath.Join(d, "other")
			mkdirAs(t, od, p.other, 0o755)
			s := filepath.Join(od, "serve.sock")
			testuser.Fake(t, p.other, s, log)
			link := filepath.Join(d, fmt.Sprintf("rivumi-%d", p.victim))
			must(t, os.Symlink(od, link))
			must(t, os.Lchown(link, p.other, p.other))
			return env{[]string{"TMPDIR=" + d}, filepath.Join(link, "serve.sock")}
		}},
		{"victim's file, the other user's listener", false, true, func(t *testing.T, log string) env {
			// What winning a race between the check of the socket file
			// and the connection would give: the file and its directory
			// are the victim's, the process listening is not.
			d := sticky(t)
			sd := filepath.Join(d, fmt.Sprintf("rivumi-%d", p.victim))
			mkdirAs(t, sd, p.other, 0o777)
			s := filepath.Join(sd, "serve.sock")
			testuser.Fake(t, p.other, s, log)
			must(t, os.Lchown(s, p.victim, p.victim))
			must(t, os.Chmod(s, 0o600))
			must(t, os.Chown(sd, p.victim, p.victim))
			must(t, os.Chmod(sd, 0o700))
			return env{[]string{"TMPDIR=" + d}, s}
		}},
		{"control: the victim's own server", true, true, func(t *testing.T, log string) env {
			d := sticky(t)
			sd := filepath.Join(d, fmt.Sprintf("rivumi-%d", p.victim))
			mkdirAs(t, sd, p.victim, 0o700)
			s := filepath.Join(sd, "serve.sock")
			testuser.Fake(t, p.victim, s, log)
			must(t, os.Chmod(s, 0o600))
			return env{[]string{"TMPDIR=" + d}, s}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := victimWorld(t, p.victim)
			w.autostartEnv("5s")
			var kept []string
			for _, kv := range w.env {
				if !strings.HasPrefix(kv, "RIVUMI_SOCKET=") && !strings.HasPrefix(kv, "TMPDIR=") {
					kept = append(kept, kv)
				}
			}
			w.env = kept
			logf, err := os.CreateTemp(testuser.Shared(t), "fake")
			must(t, err)
			logf.Close()
			must(t, os.Chmod(logf.Name(), 0o666))
			t.Cleanup(func() { os.Remove(logf.Name()) })
			e := tc.setup(t, logf.Name())
			w.env = append(w.env, e.vars...)
			for _, command := range []string{"rm -rf /", "npm test"} {
				pl := payload("claude-code", "Bash", map[string]any{"command": command}, w.proj)
				want := w.as(t, p.victim, []string{filepath.Join(bin, "rivumi"), "hook", "claude-code", "--socket", "none", "--audit", "off"}, pl)
				for _, argv := range [][]string{
					{filepath.Join(bin, "rivumi-hook"), "claude-code", "--audit", "off"},
					{filepath.Join(bin, "rivumi"), "hook", "claude-code", "--audit", "off"},
				} {
					got := w.as(t, p.victim, argv, pl)
					fake := strings.Contains(got.stdout, "fake server")
					switch {
					case tc.believe && filepath.Base(argv[0]) == "rivumi-hook" && !fake:
						t.Errorf("%s %q: not the victim's own server's answer: exit %d %q", argv[0], command, got.code, got.stdout)
					case !tc.believe && (fake || got.code != want.code || got.stdout != want.stdout):
						t.Errorf("%s %q: exit %d %q; want the in-process exit %d %q", argv[0], command, got.code, got.stdout, want.code, want.stdout)
					}
				}
			}
			seen := fakeLog(logf.Name())
			switch {
			case !tc.connects && seen != "":
				t.Errorf("the other user's server was connected to:\n%s", seen)
			case !tc.believe && (strings.Contains(seen, "call ") || strings.Contains(seen, "http ")):
				t.Errorf("the other user's server was sent a call:\n%s", seen)
			case tc.connects && !strings.Contains(seen, "connection"):
				t.Errorf("no client connected: the case does not test the peer check")
			}
			if tc.believe && !strings.Contains(seen, "call claude-code") {
				t.Errorf("the victim's own server was not called: %q", seen)
			}
			// Nothing replaced the planted socket, and no server started.
			time.Sleep(300 * time.Millisecond)
			if fi, err := os.Lstat(e.sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
				t.Errorf("the planted socket %s: %v %v", e.sock, fi, err)
			}
			if pids := startedPIDs(t, e.sock); len(pids) > 0 {
				for _, pid := range pids {
					syscall.Kill(pid, syscall.SIGTERM)
				}
				t.Errorf("a server was started over the planted socket: %v", pids)
			}
		})
	}
}
