package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Listen opens the streamable HTTP listener: network "tcp" on a loopback
// address (127.0.0.1:PORT, [::1]:PORT or localhost:PORT; port 0 picks
// one), or network "unix" on a socket path that does not exist yet (made
// mode 0600). Anything else is refused: the server has no
// authentication, so only the local user may reach it.
func Listen(network, addr string) (net.Listener, error) {
	switch network {
	case "tcp":
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: http address %q: %w", addr, err)
		}
		if host != "localhost" {
			ip := net.ParseIP(host)
			if ip == nil || !ip.IsLoopback() {
				return nil, fmt.Errorf("mcpserver: http address %q: not a loopback address (127.0.0.1, ::1 or localhost)", addr)
			}
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: %w", err)
		}
		if ta, ok := l.Addr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
			l.Close()
			return nil, fmt.Errorf("mcpserver: %s resolved to %v, not a loopback address", addr, l.Addr())
		}
		return l, nil
	case "unix":
		if addr == "" {
			return nil, errors.New("mcpserver: unix socket: empty path")
		}
		if _, err := os.Lstat(addr); err == nil {
			return nil, fmt.Errorf("mcpserver: unix socket %s: already exists (remove it if no server uses it)", addr)
		}
		old := umask(0o177)
		l, err := net.Listen("unix", addr)
		umask(old)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: %w", err)
		}
		if err := os.Chmod(addr, 0o600); err != nil {
			l.Close()
			return nil, fmt.Errorf("mcpserver: %w", err)
		}
		return l, nil
	}
	return nil, fmt.Errorf("mcpserver: network %q: want tcp or unix", network)
}

// Handler returns the streamable HTTP handler of the server (every path).
// Requests whose Host header is not a loopback name are refused (DNS
// rebinding), as are cross-origin browser requests.
func (s *Server) Handler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, &mcp.StreamableHTTPOptions{})
	return http.NewCrossOriginProtection().Handler(hostCheck(h))
}

// hostCheck refuses a Host header that names another machine: a page in
// a browser must not reach the server by rebinding a name to 127.0.0.1.
// (The SDK does the same for TCP; a unix socket has no address it checks.)
func hostCheck(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		if ip := net.ParseIP(host); !(host == "localhost" || ip != nil && ip.IsLoopback()) {
			http.Error(w, "rivumi mcp: Host "+r.Host+" is not a loopback name", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Serve serves streamable HTTP on l until ctx ends, then shuts down
// (waiting up to 5 s for calls in progress).
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = hs.Close()
	}
	<-errc
	return err
}
