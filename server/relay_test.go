package server_test

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/hookrelay"
	"github.com/rivumi/rivumi/server"
)

// TestHookRelaySocketOnly: the relay answers on the unix socket and does
// not exist over TCP, where anyone on the machine may connect.
func TestHookRelaySocketOnly(t *testing.T) {
	e := sharedEngine(t)
	var got hookrelay.Call
	s, err := server.New(context.Background(), func(context.Context) (*engine.Engine, error) { return e, nil },
		server.WithHookRelay(func(_ context.Context, c hookrelay.Call) hookrelay.Result {
			got = c
			return hookrelay.Result{Code: 2, Stdout: []byte("out"), Stderr: []byte("err\x00\xff")}
		}))
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(shortTemp(t), "s.sock")
	uln, err := server.ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
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
	resp, err := http.Post("http://"+tcp.Addr().String()+hookrelay.Path, "application/json", strings.NewReader(`{"agent":"claude-code"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("relay over TCP: HTTP %d; want 404", resp.StatusCode)
	}
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
