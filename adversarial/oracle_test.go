//go:build linux

// The bash oracle runs bash under bubblewrap: Linux only.

package adversarial_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rivumi/rivumi/adversarial"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/verdict"
)

// The oracle runs each corpus command in real bash, inside bubblewrap: a
// tmpfs root, no network, no host file but bash and the libraries, an empty
// PATH and a command_not_found_handle that only logs its argv. Every
// program path under /usr/bin, /usr/sbin and /usr/local/bin is a symlink to
// a logger script, so /bin/rm is logged too instead of run. Builtins (echo,
// cd, eval, source, kill …) run for real, inside the sandbox, where they
// cannot harm anything; ulimits bound processes, CPU, file size and memory.
//
// Every program bash tried to run must appear among rivumi's segments with
// that argv (program compared by basename), or rivumi's verdict must be at
// least ask.

const oracleTimeout = 2 * time.Second

// notFound logs one NUL-separated record per call: the argument count, then
// each argument. Each process appends to a file of its own, so records of
// concurrent processes (pipelines, substitutions) never interleave.
const notFound = `command_not_found_handle() { { printf '%d\0' "$#"; printf '%s\0' "$@"; } >> /log/calls.$BASHPID; return 127; }`

// pureFuncs make dirname and basename run for real, logged as any program
// is: their output is a function of their words, and rivumi knows it (a
// substitution of them has a known value), so the oracle must compute it
// as bash would. The real coreutils binaries are bound read-only.
const pureFuncs = `dirname() { { printf '%d\0' "$(( $# + 1 ))"; printf '%s\0' dirname "$@"; } >> /log/calls.$BASHPID; /oracle/real/dirname "$@"; }
basename() { { printf '%d\0' "$(( $# + 1 ))"; printf '%s\0' basename "$@"; } >> /log/calls.$BASHPID; /oracle/real/basename "$@"; }`

// pureBinaries are the real programs pureFuncs run (found on PATH).
var pureBinaries = []string{"dirname", "basename"}

const loggerScript = `#!/oracle/bash
{ printf '%d\0' "$(( $# + 1 ))"; printf '%s\0' "$0" "$@"; } >> /log/calls.$$
exit 127
`

type sandbox struct {
	bwrap, bash, dir string
	nproc            int
	cred             *syscall.Credential
	// real are the pure programs run for real (pureBinaries), by name;
	// pure defines them in the script when all are found.
	real map[string]string
	pure string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("bwrap is required in CI (the bash oracle must run)")
		}
		t.Skip("bwrap not found; the bash oracle needs bubblewrap")
	}
	bash, err := exec.LookPath("bash")
	if err == nil {
		bash, err = filepath.EvalSymlinks(bash)
	}
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	dir, err := os.MkdirTemp("", "rivumi-oracle-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &sandbox{bwrap: bwrap, bash: bash, dir: dir, real: map[string]string{}}
	for _, name := range pureBinaries {
		p, err := exec.LookPath(name)
		if err == nil {
			p, err = filepath.EvalSymlinks(p)
		}
		if err != nil {
			t.Fatalf("%s (run for real by the oracle): %v", name, err)
		}
		s.real[name] = p
	}
	s.pure = pureFuncs
	bin := filepath.Join(dir, "bin")
	must(t, os.MkdirAll(bin, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "log"), []byte(loggerScript), 0o755))
	for _, d := range []string{"/usr/bin", "/usr/sbin", "/usr/local/bin", "/bin", "/sbin"} {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			l := filepath.Join(bin, e.Name())
			if _, err := os.Lstat(l); err == nil {
				continue
			}
			must(t, os.Symlink("/oracle/log", l))
		}
	}
	must(t, os.Chmod(dir, 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "runs"), 0o777))
	must(t, os.Chmod(filepath.Join(dir, "runs"), 0o777))
	// As root, drop to nobody so that RLIMIT_NPROC binds (the kernel does
	// not enforce it for root) and a fork bomb in the corpus stays small.
	s.nproc = 64
	if os.Getuid() == 0 {
		s.cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	} else {
		s.nproc += processesOf(os.Getuid())
	}
	// Probe: the sandbox must start and log a missing program.
	calls, err := s.run(context.Background(), 0, "probe-program a 'b c'")
	if err != nil || len(calls) != 1 || strings.Join(calls[0], "|") != "probe-program|a|b c" {
		msg := fmt.Sprintf("the bubblewrap sandbox does not work here: %v (calls %q)", err, calls)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// processesOf counts the processes of uid (for RLIMIT_NPROC headroom).
func processesOf(uid int) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[0] == "Uid:" && f[1] == strconv.Itoa(uid) {
				n++
			}
		}
	}
	return n
}

// run executes cmd in a fresh sandbox and returns the argv of every program
// bash tried to run, in order.
func (s *sandbox) run(ctx context.Context, id int, cmd string) ([][]string, error) {
	runDir := filepath.Join(s.dir, "runs", strconv.Itoa(id))
	os.RemoveAll(runDir)
	if err := os.MkdirAll(runDir, 0o777); err != nil {
		return nil, err
	}
	os.Chmod(runDir, 0o777)
	defer os.RemoveAll(runDir)
	script := fmt.Sprintf("ulimit -u %d 2>/dev/null; ulimit -t 2; ulimit -f 8192; ulimit -v 1048576\n%s\n%s\n%s", s.nproc, notFound, s.pure, cmd)
	args := []string{
		"--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
		"--setenv", "PATH", "/nonexistent", "--setenv", "HOME", home, "--setenv", "LANG", "C.UTF-8",
		"--size", "67108864", "--tmpfs", "/",
		"--dir", "/usr", "--dir", "/usr/local",
		"--ro-bind", "/usr/lib", "/usr/lib", "--ro-bind-try", "/usr/lib64", "/usr/lib64",
		"--ro-bind", filepath.Join(s.dir, "bin"), "/usr/bin",
		"--ro-bind", filepath.Join(s.dir, "bin"), "/usr/sbin",
		"--ro-bind", filepath.Join(s.dir, "bin"), "/usr/local/bin",
		"--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
		"--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
		"--ro-bind", s.bash, "/oracle/bash", "--ro-bind", filepath.Join(s.dir, "log"), "/oracle/log",
		"--bind", runDir, "/log",
		"--proc", "/proc", "--dev", "/dev", "--dir", "/tmp", "--dir", home, "--dir", workspace,
		"--chdir", workspace,
	}
	for name, path := range s.real {
		args = append(args, "--ro-bind", path, "/oracle/real/"+name)
	}
	args = append(args, "/oracle/bash", "--norc", "--noprofile", "-c", script)
	ctx, cancel := context.WithTimeout(ctx, oracleTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, s.bwrap, args...)
	c.Stdin = nil
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: s.cred}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = time.Second
	var stderr bytes.Buffer
	c.Stderr = &stderr
	err := c.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return nil, fmt.Errorf("%v: %s", err, stderr.String())
	}
	files, _ := filepath.Glob(filepath.Join(runDir, "calls.*"))
	sort.Strings(files)
	var calls [][]string
	for _, f := range files {
		b, _ := os.ReadFile(f)
		calls = append(calls, parseCalls(b)...)
	}
	return calls, nil
}

// parseCalls reads the records: a count, then that many NUL-terminated
// arguments.
func parseCalls(b []byte) [][]string {
	var out [][]string
	fields := strings.Split(string(b), "\x00")
	for i := 0; i < len(fields); {
		n, err := strconv.Atoi(fields[i])
		if err != nil || i+1+n > len(fields) {
			break
		}
		out = append(out, fields[i+1:i+1+n])
		i += 1 + n
	}
	return out
}

// item is one word of a segment as a pattern over a bash argv.
type item struct {
	text string
	any  bool // dynamic: matches any number of words
	name bool // a program name: compared by basename, case-insensitively
}

func programOf(s string) string {
	s = s[strings.LastIndexByte(s, '/')+1:]
	return strings.TrimSuffix(strings.ToLower(s), ".exe")
}

// expandTilde applies bash's tilde expansion of static words: rivumi keeps
// ~ and ~/x as written.
func expandTilde(w string) string {
	if w == "~" {
		return home
	}
	if strings.HasPrefix(w, "~/") {
		return home + w[1:]
	}
	return w
}

func match(p []item, argv []string) bool {
	if len(p) == 0 {
		return len(argv) == 0
	}
	if p[0].any {
		for k := 0; k <= len(argv); k++ {
			if match(p[1:], argv[k:]) {
				return true
			}
		}
		return false
	}
	if len(argv) == 0 {
		return false
	}
	ok := expandTilde(p[0].text) == argv[0]
	if p[0].name {
		ok = programOf(p[0].text) == programOf(argv[0])
	}
	return ok && match(p[1:], argv[1:])
}

// shellWrappers are wrappers bash runs itself: they never reach exec.
var shellWrappers = map[string]bool{"time": true, "command": true, "builtin": true, "exec": true}

// pattern is a segment as bash's argv: its wrappers (less those bash runs
// itself), then its argv.
func pattern(s *parser.Segment) []item {
	ws := s.Wrappers
	for len(ws) > 0 && shellWrappers[ws[0].Name] {
		ws = ws[1:]
	}
	var p []item
	for _, w := range ws {
		p = append(p, item{text: w.Name, name: true})
		split := false
		for _, a := range w.Args {
			p = append(p, item{text: a})
			split = split || (w.Name == "env" && (strings.HasPrefix(a, "-S") || strings.HasPrefix(a, "--split-string")))
		}
		if split {
			// env -S splits its string into the words that follow: bash
			// saw the string, rivumi's argv holds the words.
			return p
		}
	}
	for i, a := range s.Argv {
		p = append(p, item{text: a, any: s.Dynamic[i], name: i == 0})
	}
	return p
}

type oracleResult struct {
	cmd      string
	calls    [][]string
	verdict  verdict.Decision
	unmatch  [][]string // records no segment explains
	inexact  int        // records explained only through a dynamic word
	static   bool       // every word of every segment is static
	err      error
	parseErr bool
}

func TestBashOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	sb := newSandbox(t)
	e := eng(t)
	ctx := context.Background()

	var cmds []string
	seen := map[string]bool{}
	for _, tc := range corpus(t) {
		// A NUL cannot be passed to bash (execve ends the argument there).
		if (tc.Shell != "" && tc.Shell != "bash") || seen[tc.Command] || strings.ContainsRune(tc.Command, 0) {
			continue
		}
		seen[tc.Command] = true
		cmds = append(cmds, tc.Command)
	}
	// A slice of the generated cases, every family represented.
	gen := adversarial.Generate()
	for i := 0; i < len(gen); i += 80 {
		if !seen[gen[i].Command] {
			seen[gen[i].Command] = true
			cmds = append(cmds, gen[i].Command)
		}
	}

	results := make([]oracleResult, len(cmds))
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), 4)
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(cmds); i += workers {
				results[i] = oracleOne(ctx, e, sb, w, cmds[i])
			}
		}()
	}
	wg.Wait()

	var records, exact, inexact, staticCmds, staticExact int
	var failures, disagreements, errs []string
	for _, r := range results {
		if r.err != nil {
			errs = append(errs, fmt.Sprintf("%q: %v", r.cmd, r.err))
			continue
		}
		records += len(r.calls)
		inexact += r.inexact
		exact += len(r.calls) - len(r.unmatch) - r.inexact
		if r.static {
			staticCmds++
			if len(r.unmatch) == 0 && r.inexact == 0 {
				staticExact++
			}
		}
		for _, u := range r.unmatch {
			line := fmt.Sprintf("%q: bash ran %q, no segment has that argv; rivumi says %s", r.cmd, u, r.verdict)
			if r.verdict == verdict.Allow {
				failures = append(failures, line)
			} else {
				disagreements = append(disagreements, line)
			}
		}
	}
	sort.Strings(disagreements)
	t.Logf("bash oracle: %d commands in %v; bash tried %d programs: %d matched a segment exactly, %d only through a dynamic word, %d unmatched (%d while rivumi allows); static commands %d, argv identical %d",
		len(cmds), time.Since(start).Round(time.Millisecond), records, exact, inexact, len(failures)+len(disagreements), len(failures), staticCmds, staticExact)
	if len(disagreements) > 0 {
		t.Logf("disagreements on commands rivumi does not allow (%d):\n%s", len(disagreements), strings.Join(disagreements, "\n"))
	}
	if len(errs) > 0 {
		t.Errorf("the sandbox failed on %d commands:\n%s", len(errs), strings.Join(errs, "\n"))
	}
	if len(failures) > 0 {
		t.Errorf("rivumi allows commands in which bash runs a program it did not see (%d):\n%s", len(failures), strings.Join(failures, "\n"))
	}
}

func oracleOne(ctx context.Context, e *engine.Engine, sb *sandbox, worker int, cmd string) oracleResult {
	r := oracleResult{cmd: cmd}
	ex := e.Explain(ctx, cmd, evalOpts("bash")...)
	r.verdict = ex.Verdict.Decision
	r.parseErr = ex.Command.Shape.Error != nil
	r.calls, r.err = sb.run(ctx, worker, cmd)
	if r.err != nil {
		return r
	}
	r.static = !r.parseErr && ex.Command.Shape.Limit == ""
	var pats [][]item
	for _, s := range ex.Command.Segments {
		for _, d := range s.Dynamic {
			if d {
				r.static = false
			}
		}
		pats = append(pats, pattern(s))
	}
	for _, call := range r.calls {
		found, exactly := false, false
		for _, p := range pats {
			if match(p, call) {
				found = true
				exactly = exactly || !hasAny(p)
			}
		}
		switch {
		case !found:
			r.unmatch = append(r.unmatch, call)
		case !exactly:
			r.inexact++
		}
	}
	return r
}

func hasAny(p []item) bool {
	for _, it := range p {
		if it.any {
			return true
		}
	}
	return false
}
