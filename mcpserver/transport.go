package mcpserver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rivumi/rivumi/internal/usersock"
)

// Listen opens the streamable HTTP listener: network "tcp" on a loopback
// address (127.0.0.1:PORT, [::1]:PORT or localhost:PORT; port 0 picks
// one), or network "unix" on a socket path that does not exist yet (made
// mode 0600). Anything else is refused. Every local user can reach a
// loopback port: [Server.Serve] serves one only with a bearer token
// ([WithToken]). A unix socket is the user's alone: its mode, and on
// Linux the listener closes a connection from another user's process
// unanswered (SO_PEERCRED).
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
		return peerListener{l}, nil
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

// peerListener closes, unanswered, a connection from another user's
// process ([usersock.PeerIsUs]).
type peerListener struct{ net.Listener }

func (l peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		sc, ok := c.(interface {
			net.Conn
			SyscallConn() (syscall.RawConn, error)
		})
		if !ok {
			c.Close()
			continue
		}
		if err := usersock.PeerOf(sc); err != nil {
			c.Close()
			continue
		}
		return c, nil
	}
}

// ServeOption configures [Server.Serve].
type ServeOption func(*serveConfig)

type serveConfig struct {
	token string
	set   bool
}

// WithToken makes every request show `Authorization: Bearer TOKEN`; one
// without it (or with another token) is answered 401 and reaches no
// tool. Serve refuses an empty token.
func WithToken(token string) ServeOption {
	return func(c *serveConfig) { c.token = token; c.set = true }
}

// NewToken returns a fresh random token (32 bytes, hex) for [WithToken].
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("mcpserver: token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// requireToken answers 401 to a request without the bearer token.
func requireToken(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Values("Authorization")
		if len(got) != 1 || subtle.ConstantTimeCompare([]byte(got[0]), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="rivumi mcp"`)
			http.Error(w, "rivumi mcp: a bearer token is required (Authorization: Bearer TOKEN)", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Serve serves streamable HTTP on l until ctx ends, then shuts down
// (waiting up to 5 s for calls in progress). A TCP listener is served
// only with [WithToken]: any local user can connect to a loopback port,
// and the tools write the workspace and run commands.
func (s *Server) Serve(ctx context.Context, l net.Listener, opts ...ServeOption) error {
	var cfg serveConfig
	for _, o := range opts {
		o(&cfg)
	}
	h := s.Handler()
	switch {
	case cfg.set && cfg.token == "":
		return errors.New("mcpserver: an empty bearer token")
	case cfg.set:
		h = requireToken(cfg.token, h)
	case l.Addr().Network() != "unix":
		return fmt.Errorf("mcpserver: %s: serving a %s listener needs a bearer token (WithToken): every local user can reach it", l.Addr(), l.Addr().Network())
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
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
