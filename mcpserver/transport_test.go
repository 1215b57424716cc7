package mcpserver_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rivumi/rivumi/mcpserver"
)

func TestListenRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0", "example.com:0", "127.0.0.1"} {
		if l, err := mcpserver.Listen("tcp", addr); err == nil {
			l.Close()
			t.Errorf("Listen(tcp, %q): no error", addr)
		}
	}
	if _, err := mcpserver.Listen("udp", "127.0.0.1:0"); err == nil {
		t.Error("Listen(udp): no error")
	}
	existing := filepath.Join(t.TempDir(), "x.sock")
	os.WriteFile(existing, nil, 0o600)
	if _, err := mcpserver.Listen("unix", existing); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("Listen(unix, existing) = %v", err)
	}
}

// serve runs the server's HTTP handler on l and returns an HTTP client
// session to it.
func serveHTTP(t *testing.T, f *fixture, l net.Listener, endpoint string, hc *http.Client, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.srv.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestStreamableHTTPLoopback(t *testing.T) {
	f := newFixture(t)
	l, err := mcpserver.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/mcp"
	var asked []*mcp.ElicitParams
	cs := serveHTTP(t, f, l, url, nil, &mcp.ClientOptions{ElicitationHandler: answer(&asked, "accept", "once")})
	if v := mustOK(t, cs, "read_file", map[string]any{"path": "greeting.txt"}); v["content"] != "Hello, wrold!\n" {
		t.Errorf("read_file over http = %v", v)
	}
	// The elicitation reaches the client over the session's stream.
	if v := mustOK(t, cs, "shell", askCmd); v["decision"] != "ask" || len(asked) != 1 {
		t.Errorf("ask over http: %v, asked %d", v, len(asked))
	}
	// DNS rebinding: another Host is refused.
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{}`))
	req.Host = "evil.example:80"
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("Host evil.example: %d %s, want 403", resp.StatusCode, b)
	}
}

func TestStreamableHTTPUnixSocket(t *testing.T) {
	f := newFixture(t)
	dir, err := os.MkdirTemp("", "rivumi-mcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "mcp.sock")
	l, err := mcpserver.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode = %v, %v; want 0600", fi.Mode(), err)
	}
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	cs := serveHTTP(t, f, l, "http://localhost/mcp", hc, nil)
	if v := mustOK(t, cs, "list_files", map[string]any{}); !strings.Contains(jsonString(v), "greeting.txt") {
		t.Errorf("list_files over a unix socket = %v", v)
	}
}
