package lockedfile_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rivumi/rivumi/internal/lockedfile"
)

// appendLine is a read-modify-write that loses lines unless updates are
// serialised.
func appendLine(path, line string) error {
	return lockedfile.Update(path, 0o600, func(old []byte, _ bool) ([]byte, error) {
		return append(slices.Clone(old), line+"\n"...), nil
	})
}

func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ls := strings.Fields(string(b))
	slices.Sort(ls)
	return ls
}

func TestUpdateConcurrentGoroutines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store")
	const n = 20
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { errs[i] = appendLine(path, fmt.Sprintf("w%02d", i)) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if got := lines(t, path); len(got) != n {
		t.Fatalf("%d of %d updates survived: %v", len(got), n, got)
	}
	assertNoTemp(t, filepath.Dir(path))
}

// The helper process of TestUpdateConcurrentProcesses.
func TestMain(m *testing.M) {
	if p := os.Getenv("LOCKEDFILE_APPEND"); p != "" {
		if err := appendLine(p, os.Getenv("LOCKEDFILE_LINE")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestUpdateConcurrentProcesses(t *testing.T) {
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no processes")
	}
	path := filepath.Join(t.TempDir(), "store")
	const n = 20
	cmds := make([]*exec.Cmd, n)
	for i := range n {
		c := exec.Command(os.Args[0], "-test.run=^$")
		c.Env = append(os.Environ(), "LOCKEDFILE_APPEND="+path, fmt.Sprintf("LOCKEDFILE_LINE=p%02d", i))
		c.Stderr = os.Stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = c
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	if got := lines(t, path); len(got) != n {
		t.Fatalf("%d of %d updates survived: %v", len(got), n, got)
	}
}

func TestUpdate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	// Missing file: change sees exists false; nil writes nothing.
	if err := lockedfile.Update(path, 0o600, func(old []byte, exists bool) ([]byte, error) {
		if old != nil || exists {
			t.Errorf("missing file: got %q, %v", old, exists)
		}
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("nil change created the file: %v", err)
	}
	// Created with perm.
	if err := lockedfile.Update(path, 0o640, func([]byte, bool) ([]byte, error) { return []byte("a\n"), nil }); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
			t.Errorf("mode %v, want 0640", fi.Mode().Perm())
		}
		// An existing file keeps its mode.
		os.Chmod(path, 0o604)
		if err := lockedfile.Update(path, 0o600, func(old []byte, _ bool) ([]byte, error) { return append(old, "b\n"...), nil }); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o604 {
			t.Errorf("mode %v after update, want 0604 kept", fi.Mode().Perm())
		}
	}
	// Unchanged contents: the file is not replaced.
	before, _ := os.Stat(path)
	if err := lockedfile.Update(path, 0o600, func(old []byte, exists bool) ([]byte, error) {
		if !exists {
			t.Error("exists false for an existing file")
		}
		return old, nil
	}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(path); !os.SameFile(before, after) {
		t.Error("an unchanged update replaced the file")
	}
	// An error from change writes nothing and comes back as it is.
	boom := errors.New("boom")
	if err := lockedfile.Update(path, 0o600, func([]byte, bool) ([]byte, error) { return []byte("x"), boom }); err != boom {
		t.Fatalf("got %v, want the change's error", err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, []byte("a\nb\n")) && runtime.GOOS != "windows" {
		t.Errorf("contents %q after a failed change", b)
	}
	assertNoTemp(t, dir)
	// A missing directory is an error, not a panic or a silent success.
	if err := appendLine(filepath.Join(dir, "no", "such"), "x"); err == nil {
		t.Error("update in a missing directory succeeded")
	}
}

func TestLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	unlock, err := lockedfile.Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan struct{})
	go func() {
		u, err := lockedfile.Lock(path)
		if err == nil {
			u()
		}
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("a second Lock did not wait for the first")
	case <-time.After(100 * time.Millisecond):
	}
	unlock()
	<-got
}

// LockFile excludes across two handles of one file (as across processes),
// and the holder still writes its data.
func TestLockFileExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	a, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	unlock, err := lockedfile.LockFile(a)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		u, err := lockedfile.LockFile(b)
		if err == nil {
			err = u()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("a second LockFile did not wait for the first (%v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := a.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}
