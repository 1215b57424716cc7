package execgate_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rivumi/rivumi/execgate"
	"golang.org/x/sys/unix"
)

// childArg makes the test binary the gated child: it installs the filter,
// sends the listener over fd 3 and execs argv.
const childArg = "execgate-test-child"

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == childArg {
		runtime.LockOSThread()
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			os.Exit(120)
		}
		fd, err := execgate.InstallFilter()
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(121)
		}
		if err := execgate.SendFD(3, fd); err != nil {
			os.Exit(122)
		}
		unix.Close(fd)
		unix.Close(3)
		err = syscall.Exec(os.Args[2], os.Args[2:], os.Environ())
		os.Stderr.WriteString(err.Error())
		os.Exit(123)
	}
	os.Exit(m.Run())
}

// gated runs argv under the gate, refusing every exec whose program's base
// name is in deny, and returns the decisions.
func gated(t testing.TB, deny []string, argv ...string) ([]execgate.Decision, error) {
	t.Helper()
	if err := execgate.Available(); err != nil {
		t.Skip(err)
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	child := os.NewFile(uintptr(pair[1]), "gate-child")
	self, _ := os.Executable()
	cmd := exec.Command(self, append([]string{childArg}, argv...)...)
	cmd.ExtraFiles = []*os.File{child}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	child.Close()
	listener, err := execgate.RecvFD(pair[0])
	unix.Close(pair[0])
	if err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ds []execgate.Decision
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	served := make(chan error, 1)
	go func() {
		served <- execgate.Serve(ctx, listener, func(e execgate.Exec) error {
			if slices.Contains(deny, filepath.Base(e.Path)) {
				return errors.New("denied by the test")
			}
			return nil
		}, func(d execgate.Decision) { mu.Lock(); ds = append(ds, d); mu.Unlock() })
	}()
	werr := cmd.Wait()
	cancel()
	<-served
	return ds, werr
}

// Every exec of the tree is stopped and decided with its real argv: a
// shell's child rm is refused at the exec, the rest runs.
func TestGateStopsADeniedExecDeepInTheTree(t *testing.T) {
	dir := t.TempDir()
	keep, made := filepath.Join(dir, "keep"), filepath.Join(dir, "made")
	os.WriteFile(keep, []byte("x"), 0o644)
	script := "/usr/bin/touch " + made + "; /bin/rm -f " + keep + "; echo rm-exit=$?"
	ds, err := gated(t, []string{"rm"}, "/bin/sh", "-c", script)
	if err != nil {
		t.Fatalf("the tree failed: %v", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Error("the denied rm ran")
	}
	if _, err := os.Stat(made); err != nil {
		t.Error("the allowed touch did not run")
	}
	var seen []string
	for _, d := range ds {
		seen = append(seen, filepath.Base(d.Path)+"="+map[bool]string{true: "allow", false: "deny"}[d.Allowed])
		if filepath.Base(d.Path) == "rm" && (d.Allowed || !slices.Contains(d.Argv, keep)) {
			t.Errorf("rm: %+v", d)
		}
	}
	if got := strings.Join(seen, " "); got != "sh=allow touch=allow rm=deny" {
		t.Errorf("decisions %q", got)
	}
}

// The argv the gate reads is the argv the kernel gets, whatever its
// shape: the fast reader's bounds (64 arguments, 256 bytes each) and the
// slow reader beyond them, empty strings, bytes that are not UTF-8.
func TestGateReadsTheArgvExactly(t *testing.T) {
	many := make([]string, 100)
	for i := range many {
		many[i] = strings.Repeat("a", i%7)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"short", []string{"a", "", "b c"}},
		{"255 and 256 bytes", []string{strings.Repeat("x", 255), strings.Repeat("y", 256), strings.Repeat("z", 257)}},
		{"long", []string{strings.Repeat("L", 100000)}},
		{"100 arguments", many},
		{"not utf-8", []string{"\xff\xfe", "\x01\x7f"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := gated(t, nil, append([]string{"/bin/true"}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			want := append([]string{"/bin/true"}, tc.args...)
			if len(ds) != 1 || !slices.Equal(ds[0].Argv, want) || ds[0].Path != "/bin/true" {
				t.Errorf("read %d execs, first %q (%d args, %q), want %d args", len(ds), abbrev(ds), len(ds[0].Argv), ds[0].Reason, len(want))
			}
			if ds[0].PPID == 0 {
				t.Errorf("no parent recorded")
			}
		})
	}
}

func abbrev(ds []execgate.Decision) string {
	if len(ds) == 0 {
		return ""
	}
	s := strings.Join(ds[0].Argv, "|")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// When the supervisor is gone, no exec of the tree runs any more.
func TestGateFailsClosedWithoutSupervisor(t *testing.T) {
	if err := execgate.Available(); err != nil {
		t.Skip(err)
	}
	pair, _ := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	child := os.NewFile(uintptr(pair[1]), "gate-child")
	self, _ := os.Executable()
	cmd := exec.Command(self, childArg, "/bin/true")
	cmd.ExtraFiles = []*os.File{child}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	child.Close()
	listener, err := execgate.RecvFD(pair[0])
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(listener) // the supervisor dies before answering
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 123 {
		t.Errorf("exec without a supervisor: %v, want the child's exec to fail (exit 123)", err)
	}
}

// The supervisor's share of a gated exec: receiving the notification,
// reading the path, argv, directory and parent, and answering (with a
// decision that costs nothing). Reported as the median µs per exec.
func BenchmarkServe(b *testing.B) {
	script := "i=0; while [ $i -lt 200 ]; do /bin/true a b c; i=$((i+1)); done"
	var took []time.Duration
	for b.Loop() {
		ds, err := gated(b, nil, "/bin/sh", "-c", script)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range ds {
			took = append(took, d.Took)
		}
	}
	slices.Sort(took)
	if len(took) > 0 {
		b.ReportMetric(float64(took[len(took)/2].Nanoseconds())/1e3, "µs/exec-median")
		b.ReportMetric(float64(took[len(took)*99/100].Nanoseconds())/1e3, "µs/exec-p99")
	}
}

// Inside a gated tree no second gate can start (the kernel allows one
// listener per filter chain): Available says so, naming the cause, so a
// test suite run through `rivumi run --gate` skips its own gate tests
// instead of failing at the first run. Outside, it is available.
func TestAvailableInsideAGate(t *testing.T) {
	if out := os.Getenv("EXECGATE_NESTED_PROBE"); out != "" {
		msg := "available"
		if err := execgate.Available(); err != nil {
			msg = err.Error()
		}
		os.WriteFile(out, []byte(msg), 0o644)
		return
	}
	if err := execgate.Available(); err != nil {
		t.Skip(err)
	}
	out := filepath.Join(t.TempDir(), "probe")
	t.Setenv("EXECGATE_NESTED_PROBE", out)
	self, _ := os.Executable()
	if _, err := gated(t, nil, self, "-test.run=^TestAvailableInsideAGate$"); err != nil {
		t.Fatalf("the gated probe failed: %v", err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "already runs under a seccomp listener") {
		t.Errorf("inside a gate, Available = %q; want the nested-listener refusal", got)
	}
}
