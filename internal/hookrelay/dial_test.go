package hookrelay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rivumi/rivumi/internal/testenv"
)

// listen is a unix socket whose accepted connections go to handle.
func listen(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	testenv.NeedUnixSockets(t)
	dir, err := os.MkdirTemp("", "hr") // short: socket paths are length-limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
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
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return sock
}

// answer reads one relayed call and writes raw back.
func answer(raw func(Call) string) func(net.Conn) {
	return func(c net.Conn) {
		call, err := ReadCall(bufio.NewReader(c))
		if err != nil {
			return
		}
		io.WriteString(c, raw(call))
	}
}

func ok(r Result) string { return string(AppendResult(nil, r)) }

// TestDo: the client's own socket code (no net package) against servers
// that answer, answer slowly, never answer, hang up, or are not there.
// Only a whole answer is a result; a deadline passing is ErrTimeout, and
// so bounded; no server is ErrNoAnswer alone (the client then runs the
// full binary).
func TestDo(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 3<<20) // beyond the socket buffers: many writes and reads
	echo := listen(t, answer(func(c Call) string {
		return ok(Result{Code: 2, Stdout: c.Stdin, Stderr: []byte(c.Cwd)})
	}))
	ctx := func(d time.Duration) context.Context {
		c, cancel := context.WithTimeout(context.Background(), d)
		t.Cleanup(cancel)
		return c
	}
	res, err := Do(ctx(10*time.Second), echo, Call{Agent: "claude-code", Stdin: big, Cwd: "/p"})
	if err != nil || res.Code != 2 || !bytes.Equal(res.Stdout, big) || string(res.Stderr) != "/p" {
		t.Fatalf("echo: %v, code %d, %d bytes of stdout, stderr %q", err, res.Code, len(res.Stdout), res.Stderr)
	}
	// Without a deadline the exchange is unbounded but works.
	if res, err := Do(context.Background(), echo, Call{Stdin: []byte("{}")}); err != nil || string(res.Stdout) != "{}" {
		t.Errorf("no deadline: %v %+v", err, res)
	}

	silent := listen(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	hangup := listen(t, func(net.Conn) {})
	half := listen(t, answer(func(Call) string { return ok(Result{Stdout: []byte("{}")})[:8] }))
	slow := listen(t, answer(func(Call) string {
		time.Sleep(300 * time.Millisecond)
		return ok(Result{})
	}))
	for _, tc := range []struct {
		name    string
		sock    string
		d       time.Duration
		timeout bool
	}{
		{"silent", silent, 200 * time.Millisecond, true},
		{"silent, big call", silent, 200 * time.Millisecond, true},
		{"slow past the deadline", slow, 100 * time.Millisecond, true},
		{"hangs up", hangup, 5 * time.Second, false},
		{"half an answer", half, 5 * time.Second, false},
		{"no server", filepath.Join(filepath.Dir(echo), "missing.sock"), 5 * time.Second, false},
		{"not a socket", filepath.Dir(echo), 5 * time.Second, false},
		{"path too long", "/" + strings.Repeat("x", 200), 5 * time.Second, false},
	} {
		c := Call{Stdin: []byte("{}")}
		if strings.Contains(tc.name, "big") {
			c.Stdin = big
		}
		t0 := time.Now()
		res, err := Do(ctx(tc.d), tc.sock, c)
		took := time.Since(t0)
		switch {
		case err == nil:
			t.Errorf("%s: %+v, want an error", tc.name, res)
		case !errors.Is(err, ErrNoAnswer):
			t.Errorf("%s: %v, not ErrNoAnswer", tc.name, err)
		case errors.Is(err, ErrTimeout) != tc.timeout:
			t.Errorf("%s: %v: timeout %v, want %v", tc.name, err, errors.Is(err, ErrTimeout), tc.timeout)
		case tc.timeout && took > tc.d+2*time.Second:
			t.Errorf("%s: gave up after %v, deadline %v", tc.name, took, tc.d)
		}
	}
	// The slow server answers within a deadline that leaves it time.
	if res, err := Do(ctx(5*time.Second), slow, Call{}); err != nil || res.Code != 0 {
		t.Errorf("slow within the deadline: %v %+v", err, res)
	}
}
