package audit_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/rivumi/rivumi/audit"
)

func TestReadAllGoesOnPastTornLines(t *testing.T) {
	for _, tc := range []struct {
		name, log string
		kinds     []string
		torn      *audit.TornError
	}{
		{"whole", `{"kind":"a"}` + "\n" + `{"kind":"b"}` + "\n", []string{"a", "b"}, nil},
		// A torn line ended by the next writer: the entries after it count.
		{"torn middle", `{"kind":"a"}` + "\n" + `{"kind":"b","ar` + "\n" + `{"kind":"c"}` + "\n" + `{"kind":"d"}` + "\n",
			[]string{"a", "c", "d"}, &audit.TornError{Lines: []int{2}}},
		{"torn first and tail", `{"ki` + "\n\n" + `{"kind":"a"}` + "\n" + `not json` + "\n" + `{"kind":"b"}` + "\n" + `{"kind":"c`,
			[]string{"a", "b"}, &audit.TornError{Lines: []int{1, 4}, Tail: true}},
		{"only a tail", `{"kind":"a"`, nil, &audit.TornError{Tail: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es, err := audit.ReadAll(strings.NewReader(tc.log))
			var kinds []string
			for _, e := range es {
				kinds = append(kinds, e.Kind)
			}
			if !reflect.DeepEqual(kinds, tc.kinds) {
				t.Errorf("kinds %v, want %v", kinds, tc.kinds)
			}
			var te *audit.TornError
			switch {
			case tc.torn == nil && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.torn != nil && !errors.As(err, &te):
				t.Errorf("error %v, want a *TornError", err)
			case tc.torn != nil && !reflect.DeepEqual(te, tc.torn):
				t.Errorf("torn %+v, want %+v", te, tc.torn)
			}
		})
	}
}

func TestReadAllLongLine(t *testing.T) {
	log := `{"kind":"a"}` + "\n" + strings.Repeat("x", audit.MaxLine+10) + "\n" + `{"kind":"b"}` + "\n"
	es, err := audit.ReadAll(strings.NewReader(log))
	var te *audit.TornError
	if len(es) != 2 || !errors.As(err, &te) || !reflect.DeepEqual(te.Lines, []int{2}) {
		t.Fatalf("got %d entries, %v; want 2 and line 2 skipped", len(es), err)
	}
}

// A write that fails part-way (a full disk) leaves nothing of its line:
// the log is truncated back, and the next line is whole.
func TestFailedWriteIsTruncatedBack(t *testing.T) {
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
	before, _ := os.Stat(path)
	audit.SetWrite(l, func(f *os.File, b []byte) (int, error) {
		n, _ := f.Write(b[:len(b)/2])
		return n, syscall.ENOSPC
	})
	if err := l.Log(ctx, audit.Entry{Kind: "lost", Note: strings.Repeat("n", 100)}); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Log on a full disk: %v, want ENOSPC", err)
	}
	if after, _ := os.Stat(path); after.Size() != before.Size() {
		t.Fatalf("log is %d bytes after a failed write, want %d (truncated back)", after.Size(), before.Size())
	}
	audit.SetWrite(l, (*os.File).Write)
	if err := l.Log(ctx, audit.Entry{Kind: "b"}); err != nil {
		t.Fatal(err)
	}
	es, err := audit.ReadFile(path)
	if err != nil || len(es) != 2 || es[0].Kind != "a" || es[1].Kind != "b" {
		t.Fatalf("ReadFile = %+v, %v; want a and b, nothing torn", es, err)
	}
}

// A device that is always full: Log fails, nothing is claimed.
func TestDevFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	l, err := audit.Open("/dev/full")
	if err != nil {
		t.Skipf("cannot open /dev/full: %v", err)
	}
	defer l.Close()
	if err := l.Log(context.Background(), audit.Entry{Kind: "a"}); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Log to /dev/full: %v, want ENOSPC", err)
	}
}
