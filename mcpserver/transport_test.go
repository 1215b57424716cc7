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

	"github.com/rivumi/rivumi/internal/testenv"
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
func serveHTTP(t *testing.T, f *fixture, l net.Listener, endpoint string, hc *http.Client, opts *mcp.ClientOptions, sopts ...mcpserver.ServeOption) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.srv.Serve(ctx, l, sopts...) }()
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
	token, err := mcpserver.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: bearer{token}}
	cs := serveHTTP(t, f, l, url, hc, &mcp.ClientOptions{ElicitationHandler: answer(&asked, "accept", "once")}, mcpserver.WithToken(token))
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
	req.Header.Set("Authorization", "Bearer "+token)
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
	testenv.NeedUnixSockets(t)
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

// bearer sends the token with every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestStreamableHTTPToken: on TCP every local user can connect, so a
// request reaches the server only with the bearer token, and Serve does
// not serve TCP without one; a cross-origin browser request is refused
// even with it.
func TestStreamableHTTPToken(t *testing.T) {
	f := newFixture(t)
	l, err := mcpserver.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.srv.Serve(context.Background(), l); err == nil || !strings.Contains(err.Error(), "bearer token") {
		t.Fatalf("Serve on TCP without a token: %v", err)
	}
	if err := f.srv.Serve(context.Background(), l, mcpserver.WithToken("")); err == nil {
		t.Fatal("Serve with an empty token: no error")
	}
	l, err = mcpserver.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	token, err := mcpserver.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	if other, _ := mcpserver.NewToken(); other == token || len(token) != 64 {
		t.Fatalf("tokens %q, %q: want 64 hex digits, fresh each time", token, other)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.srv.Serve(ctx, l, mcpserver.WithToken(token)) }()
	t.Cleanup(func() { cancel(); <-done })
	url := "http://" + l.Addr().String() + "/mcp"
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, c := range []struct {
		name    string
		headers [][2]string
		want    int
	}{
		{"no token", nil, 401},
		{"another token", [][2]string{{"Authorization", "Bearer " + strings.Repeat("0", 64)}}, 401},
		{"token without Bearer", [][2]string{{"Authorization", token}}, 401},
		{"token as basic", [][2]string{{"Authorization", "Basic " + token}}, 401},
		{"token twice", [][2]string{{"Authorization", "Bearer " + token}, {"Authorization", "Bearer " + token}}, 401},
		{"token, cross-origin", [][2]string{{"Authorization", "Bearer " + token}, {"Origin", "https://evil.example"}, {"Sec-Fetch-Site", "cross-site"}}, 403},
		{"token, another Host", [][2]string{{"Authorization", "Bearer " + token}, {"Host", "evil.example"}}, 403},
		{"token", [][2]string{{"Authorization", "Bearer " + token}}, 200},
	} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for _, h := range c.headers {
			if h[0] == "Host" {
				req.Host = h[1]
				continue
			}
			req.Header.Add(h[0], h[1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: %d %s; want %d", c.name, resp.StatusCode, b, c.want)
		}
		if c.want == 401 && resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", c.name)
		}
	}
}
