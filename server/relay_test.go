package server_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/hookrelay"
	"github.com/rivumi/rivumi/server"

	"github.com/rivumi/rivumi/internal/testenv"
)

// TestHookRelaySocketOnly: the relay answers on the unix socket and does
// not exist over TCP, where anyone on the machine may connect.
func TestHookRelaySocketOnly(t *testing.T) {
	testenv.NeedUnixSockets(t)
	e := sharedEngine(t)
	var got hookrelay.Call
	s := relayServer(t, e, func(_ context.Context, c hookrelay.Call, _ func(hookrelay.Result)) hookrelay.Result {
		got = c
		return hookrelay.Result{Code: 2, Stdout: []byte("out"), Stderr: []byte("err\x00\xff")}
	})
	sock, uln := relaySocket(t)
	serve(t, s, uln)
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, s, tcp)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := hookrelay.Do(ctx, sock, hookrelay.Call{Agent: "claude-code", Args: []string{"--shadow"}, Stdin: []byte("{}"), Cwd: "/x"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 2 || string(res.Stdout) != "out" || string(res.Stderr) != "err\x00\xff" {
		t.Errorf("relay result %+v", res)
	}
	if got.Agent != "claude-code" || got.Cwd != "/x" || string(got.Stdin) != "{}" || len(got.Args) != 1 {
		t.Errorf("relayed call %+v", got)
	}
	// Over TCP a relayed call is no HTTP request, and gets no answer.
	conn, err := net.Dial("tcp", tcp.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	conn.Write(hookrelay.AppendCall(nil, hookrelay.Call{Agent: "claude-code", Cwd: "/x"}))
	conn.(*net.TCPConn).CloseWrite()
	if res, err := hookrelay.ReadResult(bufio.NewReader(conn)); err == nil {
		t.Errorf("relay over TCP answered %+v", res)
	}
	conn.Close()
	// The verdict API still answers on the socket beside the relay.
	v, err := server.NewUnixClient(sock).Verdict(ctx, server.Text("rm -rf /"))
	if err != nil || v.Decision != engine.Deny {
		t.Errorf("verdict on the relay socket: %v %v", v.Decision, err)
	}
	// No server: an error, never a result.
	if _, err := hookrelay.Do(ctx, filepath.Join(filepath.Dir(sock), "missing.sock"), hookrelay.Call{}); err == nil {
		t.Error("no server: no error")
	}
}

// TestHookRelayBadCalls: on the socket, a connection that opens like a
// relayed call but is not a whole one gets no answer, and neither does a
// panicking relay; the server goes on serving (calls and HTTP) after
// each.
func TestHookRelayBadCalls(t *testing.T) {
	testenv.NeedUnixSockets(t)
	e := sharedEngine(t)
	s := relayServer(t, e, func(_ context.Context, c hookrelay.Call, _ func(hookrelay.Result)) hookrelay.Result {
		if c.Agent == "panic" {
			panic("boom")
		}
		return hookrelay.Result{Stdout: []byte(c.Agent)}
	})
	sock, uln := relaySocket(t)
	serve(t, s, uln)
	good := hookrelay.AppendCall(nil, hookrelay.Call{Agent: "codex"})
	for name, raw := range map[string][]byte{
		"magic only":       []byte(hookrelay.CallMagic),
		"cut":              good[:len(good)-1],
		"trailing garbage": append(append([]byte(nil), good[:len(hookrelay.CallMagic)]...), 0x7f),
		"panic":            hookrelay.AppendCall(nil, hookrelay.Call{Agent: "panic"}),
	} {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(15 * time.Second))
		c.Write(raw)
		if strings.HasPrefix(name, "cut") || name == "magic only" || name == "trailing garbage" {
			c.(*net.UnixConn).CloseWrite()
		}
		if res, err := hookrelay.ReadResult(bufio.NewReader(c)); err == nil {
			t.Errorf("%s: answered %+v", name, res)
		}
		c.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if res, err := hookrelay.Do(ctx, sock, hookrelay.Call{Agent: "codex"}); err != nil || string(res.Stdout) != "codex" {
		t.Errorf("after the bad calls: %+v %v", res, err)
	}
	if v, err := server.NewUnixClient(sock).Verdict(ctx, server.Text("ls")); err != nil || v.Decision != engine.Allow {
		t.Errorf("HTTP after the bad calls: %v %v", v.Decision, err)
	}
}

// TestHookRelayShutdown: a relayed call in flight when the server is
// told to stop still gets its answer, and Serve returns after it.
func TestHookRelayShutdown(t *testing.T) {
	testenv.NeedUnixSockets(t)
	e := sharedEngine(t)
	started := make(chan struct{})
	s := relayServer(t, e, func(context.Context, hookrelay.Call, func(hookrelay.Result)) hookrelay.Result {
		close(started)
		time.Sleep(300 * time.Millisecond)
		return hookrelay.Result{Code: 2, Stderr: []byte("late")}
	})
	sock, uln := relaySocket(t)
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, uln) }()
	answered := make(chan error, 1)
	go func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := hookrelay.Do(cctx, sock, hookrelay.Call{Agent: "claude-code"})
		if err == nil && (res.Code != 2 || string(res.Stderr) != "late") {
			err = fmt.Errorf("answer %+v", res)
		}
		answered <- err
	}()
	<-started
	stop()
	if err := <-answered; err != nil {
		t.Errorf("call in flight at shutdown: %v", err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not return")
	}
}

// TestHookRelayEarlyReply: a relay that replies before it returns (a call
// past its deadline) has its reply sent at once; what it returns later is
// dropped.
func TestHookRelayEarlyReply(t *testing.T) {
	testenv.NeedUnixSockets(t)
	e := sharedEngine(t)
	release, returned := make(chan struct{}), make(chan struct{})
	s := relayServer(t, e, func(_ context.Context, c hookrelay.Call, reply func(hookrelay.Result)) hookrelay.Result {
		defer close(returned)
		reply(hookrelay.Result{Code: 2, Stderr: []byte("past the deadline")})
		reply(hookrelay.Result{Code: 0, Stdout: []byte("second reply")})
		<-release
		return hookrelay.Result{Code: 0, Stdout: []byte("late")}
	})
	sock, uln := relaySocket(t)
	serve(t, s, uln)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := hookrelay.Do(ctx, sock, hookrelay.Call{Agent: "claude-code", Stdin: []byte("{}"), Cwd: "/x"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 2 || string(res.Stderr) != "past the deadline" || len(res.Stdout) != 0 {
		t.Errorf("relay result %+v; want the first reply", res)
	}
	select {
	case <-returned:
		t.Error("the relay returned before it was released")
	default:
	}
	close(release)
	<-returned
}

// TestHookRelayAcceptors: connections that open and send nothing (each
// holding the goroutine that accepted it until its sniff deadline) do not
// hold up a call behind them, and calls one after the other leave no
// goroutines behind: those that served wait in Accept again, a bounded
// number of them.
func TestHookRelayAcceptors(t *testing.T) {
	testenv.NeedUnixSockets(t)
	e := sharedEngine(t)
	s := relayServer(t, e, func(_ context.Context, c hookrelay.Call, _ func(hookrelay.Result)) hookrelay.Result {
		return hookrelay.Result{Stdout: []byte(c.Agent)}
	})
	sock, uln := relaySocket(t)
	serve(t, s, uln)
	call := func(what string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if res, err := hookrelay.Do(ctx, sock, hookrelay.Call{Agent: "codex"}); err != nil || string(res.Stdout) != "codex" {
			t.Fatalf("%s: %+v %v", what, res, err)
		}
	}
	call("first call")
	before := runtime.NumGoroutine()
	for i := range 50 {
		call(fmt.Sprintf("call %d", i))
	}
	// The client's side of each call is gone once Do returns; give the
	// server's goroutines a moment to get back to Accept or end.
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before+1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+1 {
		t.Errorf("goroutines after 50 calls: %d, before them %d", n, before)
	}
	for range 3 {
		silent, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer silent.Close()
	}
	call("behind three silent connections")
}

// relayServer is a server grading with e whose relayed hook calls go to
// relay.
func relayServer(t *testing.T, e *engine.Engine, relay server.HookRelay) *server.Server {
	t.Helper()
	s, err := server.New(context.Background(), func(context.Context) (*engine.Engine, error) { return e, nil },
		server.WithHookRelay(relay))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// relaySocket listens on a unix socket in a fresh short directory.
func relaySocket(t *testing.T) (string, net.Listener) {
	t.Helper()
	sock := filepath.Join(shortTemp(t), "s.sock")
	uln, err := server.ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	return sock, uln
}
