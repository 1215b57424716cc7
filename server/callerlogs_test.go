package server_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/internal/testenv"
	"github.com/rivumi/rivumi/server"
)

// memSink records audit entries.
type memSink struct {
	mu sync.Mutex
	e  []audit.Entry
}

func (m *memSink) Log(_ context.Context, e audit.Entry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.e = append(m.e, e)
	return nil
}

func (m *memSink) take() []audit.Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.e
	m.e = nil
	return out
}

// TestDecisionLogCallers: a hook's request over the unix socket
// (CallerLogs) and a relayed hook call are left out of serve's decision
// log — the hook logs its own answer, with what was enforced — while the
// same header over TCP is ignored, and a body that does not decode is
// logged as the deny it gets.
func TestDecisionLogCallers(t *testing.T) {
	testenv.NeedUnixSockets(t)
	e := sharedEngine(t)
	sink := &memSink{}
	s, err := server.New(context.Background(), staticLoad(e), server.WithAudit(sink))
	if err != nil {
		t.Fatal(err)
	}
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, s, tcp)
	sock := filepath.Join(shortTemp(t), "s.sock")
	uln, err := server.ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	serve(t, s, uln)
	ctx := context.Background()
	r := server.Text("ls")
	for _, c := range []struct {
		name   string
		grade  func() error
		logged int
	}{
		{"unix socket", func() error { _, err := server.NewUnixClient(sock).Verdict(ctx, r); return err }, 1},
		{"unix socket, the caller logs", func() error { _, err := server.NewUnixClient(sock).CallerLogs().Verdict(ctx, r); return err }, 0},
		{"TCP, the caller says it logs", func() error {
			_, err := server.NewClient("http://"+tcp.Addr().String()).CallerLogs().Verdict(ctx, r)
			return err
		}, 1},
		{"relayed hook call", func() error { _, err := s.Verdict(ctx, r, "relay"); return err }, 0},
		{"in process", func() error { s.Grade(ctx, &r, "stdio"); return nil }, 1},
	} {
		if err := c.grade(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := sink.take(); len(got) != c.logged {
			t.Errorf("%s: %d entries in serve's decision log, want %d", c.name, len(got), c.logged)
		}
	}
	// Bad input: logged as the deny it is.
	for _, body := range []string{`{"command": "ls", "bogus": 1}`, `not json`} {
		resp, err := http.Post("http://"+tcp.Addr().String()+"/v1/verdict", "application/json", bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := sink.take()
		if len(got) != 1 || got[0].Decision != "deny" || len(got[0].Rules) != 1 || got[0].Rules[0] != server.RuleBadInput || got[0].Error == "" {
			t.Errorf("bad body %q: logged %+v, want one deny by %s with the error", body, got, server.RuleBadInput)
		}
	}
	bad := server.Request{Command: new(string)}
	*bad.Command = strings.Repeat("x", 10)
	bad.Shell = "tcsh"
	s.Grade(ctx, &bad, "stdio")
	if got := sink.take(); len(got) != 1 || got[0].Decision != "deny" || got[0].Error == "" {
		t.Errorf("invalid request: logged %+v, want its deny", got)
	}
}
