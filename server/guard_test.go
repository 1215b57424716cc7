package server_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/server"

	"github.com/rivumi/rivumi/internal/testenv"
)

// TestLocalHTTPGuards: on loopback TCP a Host that is not a loopback name
// is refused (DNS rebinding), and on every listener a cross-origin
// browser request; same-origin and non-browser requests are served. On a
// unix socket any Host is served (no browser reaches it).
func TestLocalHTTPGuards(t *testing.T) {
	testenv.NeedUnixSockets(t)
	e := sharedEngine(t)
	s, err := server.New(context.Background(), staticLoad(e))
	if err != nil {
		t.Fatal(err)
	}
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "rg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s.sock")
	unix, err := server.ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 2)
	go func() { done <- s.Serve(ctx, tcp) }()
	go func() { done <- s.Serve(ctx, unix) }()
	t.Cleanup(func() { cancel(); <-done; <-done })
	unixClient := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	port := tcp.Addr().(*net.TCPAddr).Port
	for _, c := range []struct {
		name    string
		unix    bool
		method  string
		host    string
		headers [][2]string
		want    int
	}{
		{"loopback ip", false, "POST", "", nil, 200},
		{"localhost", false, "POST", "localhost:1", nil, 200},
		{"::1", false, "POST", "[::1]:8282", nil, 200},
		{"rebound name", false, "POST", "evil.example", nil, 403},
		{"rebound name with port", false, "POST", "evil.example:8282", nil, 403},
		{"rebound name, GET", false, "GET", "evil.example", nil, 403},
		{"127.0.0.1 as a suffix", false, "POST", "127.0.0.1.evil.example", nil, 403},
		{"cross-site", false, "POST", "", [][2]string{{"Sec-Fetch-Site", "cross-site"}}, 403},
		{"other origin", false, "POST", "", [][2]string{{"Origin", "https://evil.example"}}, 403},
		{"same origin", false, "POST", "", [][2]string{{"Sec-Fetch-Site", "same-origin"}}, 200},
		{"unix, any host", true, "POST", "rivumi", nil, 200},
		{"unix, cross-site", true, "POST", "rivumi", [][2]string{{"Sec-Fetch-Site", "cross-site"}}, 403},
	} {
		url := "http://127.0.0.1:" + strconv.Itoa(port) + "/v1/verdict"
		hc := http.DefaultClient
		if c.unix {
			url, hc = "http://rivumi/v1/verdict", unixClient
		}
		var body io.Reader
		if c.method == "POST" {
			body = strings.NewReader(`{"command":"ls"}`)
		} else {
			url = strings.Replace(url, "/v1/verdict", "/healthz", 1)
		}
		req, _ := http.NewRequest(c.method, url, body)
		if c.host != "" {
			req.Host = c.host
		}
		req.Header.Set("Content-Type", "application/json")
		for _, h := range c.headers {
			req.Header.Set(h[0], h[1])
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: %d %s; want %d", c.name, resp.StatusCode, b, c.want)
		}
	}
}
