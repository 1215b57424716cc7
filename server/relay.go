package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/hookrelay"
)

// HookRelay runs one relayed hook call (see package hookrelay) and
// returns its outcome; `rivumi serve` runs `rivumi hook AGENT` in its
// own process for it.
type HookRelay func(ctx context.Context, c hookrelay.Call) hookrelay.Result

// WithHookRelay serves the thin hook client's calls (POST
// [hookrelay.Path]) with f, on unix sockets only: a call runs the hook
// with the client's flags and environment, which only the socket's owner
// may hand over. Over TCP the path does not exist.
func WithHookRelay(f HookRelay) Option { return func(s *Server) { s.relay = f } }

// Verdict grades r in this process and answers as [Client.Verdict] would
// over the socket: a response marked as an error is a deny with the
// error, one whose audit entry could not be written (HTTP 503 there) an
// error alone. The hook relay grades with it.
func (s *Server) Verdict(ctx context.Context, r Request, transport string) (engine.Verdict, error) {
	resp := s.Grade(ctx, &r, transport)
	if resp.unrecorded {
		return engine.Verdict{}, fmt.Errorf("server: %s", resp.Error)
	}
	return verdictOf(resp)
}

// socketHandler is the API on a unix socket: [Server.Handler] plus the
// hook relay when one is configured.
func (s *Server) socketHandler() http.Handler {
	if s.relay == nil {
		return s.Handler()
	}
	mux := http.NewServeMux()
	mux.Handle("/", s.Handler())
	mux.HandleFunc("POST "+hookrelay.Path, s.handleHook)
	return mux
}

func (s *Server) handleHook(w http.ResponseWriter, r *http.Request) {
	if err := peerIsUs(r.Context()); err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != hookrelay.ContentType {
		// An older or newer client: it runs the full binary instead.
		http.Error(w, fmt.Sprintf("a relayed call is %s, not %q", hookrelay.ContentType, ct), http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, hookrelay.MaxBody))
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	c, err := hookrelay.DecodeCall(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.m.relayed()
	res := s.relay(r.Context(), c)
	b := hookrelay.AppendResult(nil, res)
	// A length, never chunks: the client reads exactly this much.
	w.Header().Set("Content-Type", hookrelay.ContentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// connKey carries the accepted connection into the request's context.
type connKey struct{}

func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// errPeer is a relayed call from a process that is not this user's.
var errPeer = errors.New("hook relay: the caller is not this server's user")

func peerIsUs(ctx context.Context) error {
	c, ok := ctx.Value(connKey{}).(net.Conn)
	if !ok {
		return fmt.Errorf("%w (no connection)", errPeer)
	}
	return peerUID(c)
}
