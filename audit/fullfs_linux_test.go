package audit_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rivumi/rivumi/audit"
)

// mountTinyFS mounts a 16 KiB tmpfs, or skips the test saying why.
func mountTinyFS(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a real full file system needs root to mount a tiny tmpfs")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=16k,mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// On a file system that fills up, every Log that returned nil is in the
// log, whole; the failed ones left nothing, and once there is room again
// the next line is whole too.
func TestFullFileSystem(t *testing.T) {
	dir := mountTinyFS(t)
	filler := filepath.Join(dir, "filler")
	if err := os.WriteFile(filler, bytes.Repeat([]byte{'f'}, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "audit.jsonl")
	l, err := audit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	ok, failed := 0, 0
	for i := 0; failed < 3 && i < 1000; i++ {
		// Lines of ~700 bytes do not divide a page: one ends part-way.
		err := l.Log(ctx, audit.Entry{Kind: "grade", Note: strings.Repeat("x", 650)})
		if err != nil {
			failed++
			continue
		}
		ok++
	}
	if failed == 0 {
		t.Fatal("the tmpfs never filled up")
	}
	raw, _ := os.ReadFile(path)
	if len(raw) == 0 || raw[len(raw)-1] != '\n' {
		t.Errorf("log ends in a torn line after failed writes (%d bytes)", len(raw))
	}
	es, err := audit.ReadFile(path)
	t.Logf("full disk: %d entries logged, %d refused; read back %d, error %v", ok, failed, len(es), err)
	if err != nil || len(es) != ok {
		t.Fatalf("read %d entries (%v), want the %d that Log accepted", len(es), err, ok)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := l.Log(ctx, audit.Entry{Kind: "after"}); err != nil {
		t.Fatalf("Log with room again: %v", err)
	}
	es, err = audit.ReadFile(path)
	if err != nil || len(es) != ok+1 || es[len(es)-1].Kind != "after" {
		t.Fatalf("after freeing room: read %d entries (%v), want %d", len(es), err, ok+1)
	}
}
