package audit_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rivumi/rivumi/audit"
)

// A child process started by TestConcurrentProcesses writes lines and exits.
func TestMain(m *testing.M) {
	if path := os.Getenv("RIVUMI_AUDIT_TEST_WRITER"); path != "" {
		os.Exit(writeLines(path, os.Getenv("RIVUMI_AUDIT_TEST_ID"), 200))
	}
	os.Exit(m.Run())
}

func writeLines(path, id string, n int) int {
	l, err := audit.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer l.Close()
	for i := range n {
		e := audit.Entry{Kind: audit.KindRun, RunID: id + "-" + strconv.Itoa(i), Argv: []string{"echo", strings.Repeat("x", 300)}}
		if err := l.Log(context.Background(), e); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// checkIntact reads the log and checks that every expected run id appears
// exactly once and no line is malformed.
func checkIntact(t *testing.T, path string, want int) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(raw, []byte{'\n'}); n != want {
		t.Errorf("log has %d newlines, want %d", n, want)
	}
	entries, err := audit.ReadAll(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	if len(entries) != want {
		t.Fatalf("read %d entries, want %d", len(entries), want)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.RunID] {
			t.Fatalf("duplicate line %q", e.RunID)
		}
		seen[e.RunID] = true
		if len(e.Argv) != 2 || len(e.Argv[1]) != 300 {
			t.Fatalf("line %q damaged: %q", e.RunID, e.Argv)
		}
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := audit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const writers, lines = 50, 200
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range lines {
				e := audit.Entry{Kind: audit.KindGrade, RunID: fmt.Sprintf("g%d-%d", w, i), Argv: []string{"echo", strings.Repeat("x", 300)}}
				if err := l.Log(context.Background(), e); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	d := time.Since(start)
	t.Logf("%d fsync'd lines in %v (%.0f lines/s)", writers*lines, d, float64(writers*lines)/d.Seconds())
	checkIntact(t, path, writers*lines)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestConcurrentProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const procs = 8
	start := time.Now()
	var cmds []*exec.Cmd
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "RIVUMI_AUDIT_TEST_WRITER="+path, "RIVUMI_AUDIT_TEST_ID=p"+strconv.Itoa(p))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("writer process: %v", err)
		}
	}
	t.Logf("%d processes × 200 fsync'd lines in %v", procs, time.Since(start))
	checkIntact(t, path, procs*200)
}

func TestTornTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := audit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	if err := l.Log(ctx, audit.Entry{Kind: "a"}); err != nil {
		t.Fatal(err)
	}
	// A writer dies mid-line.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"kind":"torn","ar`)
	f.Close()

	// The reader skips the torn trailing line and says so.
	got, err := audit.ReadFile(path)
	var te *audit.TornError
	if !errors.As(err, &te) || !te.Tail || len(te.Lines) != 0 || len(got) != 1 || got[0].Kind != "a" {
		t.Fatalf("ReadFile with torn tail = %+v, %v; want the one whole entry and a torn tail", got, err)
	}

	// The next writer ends the torn line first, so its own line is whole.
	if err := l.Log(ctx, audit.Entry{Kind: "b"}); err != nil {
		t.Fatal(err)
	}
	rd := audit.NewReader(mustOpen(t, path))
	var kinds []string
	var lineErrs int
	for {
		e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *audit.LineError
		if errors.As(err, &le) {
			lineErrs++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, e.Kind)
	}
	if strings.Join(kinds, ",") != "a,b" || lineErrs != 1 {
		t.Errorf("after repair: kinds %v, %d line errors; want [a b] and 1 (the torn fragment)", kinds, lineErrs)
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestLogRedactsAndStamps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "audit.jsonl")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l, err := audit.Open(path, audit.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	exit := 0
	e := audit.Entry{
		Kind:  audit.KindRun,
		Argv:  []string{"curl", "-H", "Authorization: Bearer abcdefghijklmnop", "https://x"},
		Error: "GITHUB_TOKEN=ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa leaked",
		Exit:  &exit,
	}
	if err := l.Log(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	for _, secret := range []string{"abcdefghijklmnop", "ghp_aaaa"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("secret %q written: %s", secret, raw)
		}
	}
	got, err := audit.ReadFile(path)
	if err != nil || len(got) != 1 {
		t.Fatal(got, err)
	}
	if !got[0].Time.Equal(now) || got[0].Exit == nil || *got[0].Exit != 0 {
		t.Errorf("entry = %+v", got[0])
	}
	if e.Argv[2] != "Authorization: Bearer abcdefghijklmnop" {
		t.Error("Log modified the caller's argv")
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Log(context.Background(), e); err == nil {
		t.Error("Log after Close succeeded")
	}
}

func BenchmarkLog(b *testing.B) {
	l, err := audit.Open(filepath.Join(b.TempDir(), "audit.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	e := audit.Entry{Kind: audit.KindRun, Argv: []string{"go", "test", "./..."}, Decision: "allow"}
	for b.Loop() {
		if err := l.Log(context.Background(), e); err != nil {
			b.Fatal(err)
		}
	}
}
