package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/hookrelay"
)

// HookRelay runs one relayed hook call (see package hookrelay) and
// returns its outcome; `rivumi serve` runs `rivumi hook AGENT` in its
// own process for it. It may give the outcome before it returns, with
// reply (from any goroutine): a call that hangs past its deadline is
// answered so. The first outcome given is sent; later ones are dropped.
type HookRelay func(ctx context.Context, c hookrelay.Call, reply func(hookrelay.Result)) hookrelay.Result

// WithHookRelay serves the thin hook client's calls with f, on unix
// sockets only: a call runs the hook with the client's flags and
// environment, which only the socket's owner may hand over. A relayed
// call is not HTTP: a connection that opens with [hookrelay.CallMagic]
// carries one call and gets one answer; every other connection on the
// socket is the HTTP API. Over TCP there is no relay.
func WithHookRelay(f HookRelay) Option { return func(s *Server) { s.relay = f } }

// Verdict grades r in this process and answers as [Client.Verdict] would
// over the socket (with [Client.CallerLogs]): a response marked as an
// error is a deny with the error. The hook relay grades with it: the
// relayed hook writes the audit entry of its answer itself, so the
// server's decision log leaves it out.
func (s *Server) Verdict(ctx context.Context, r Request, transport string) (engine.Verdict, error) {
	resp := s.grade(ctx, &r, transport, false)
	if resp.unrecorded {
		return engine.Verdict{}, fmt.Errorf("server: %s", resp.Error)
	}
	return verdictOf(resp)
}

// Deadlines of a relayed connection: the call must arrive as an HTTP
// request's head must (ReadHeaderTimeout), the whole of it as a request
// (ReadTimeout); the answer goes out within WriteTimeout of the call.
const (
	relaySniffTimeout = 5 * time.Second
	relayReadTimeout  = 10 * time.Second
	relayWriteTimeout = 30 * time.Second
)

// relayListener sits between a unix listener and the HTTP server: it
// accepts every connection, runs those that open with a relayed call
// itself, and hands the others, unchanged, to the HTTP server's Accept.
type relayListener struct {
	net.Listener
	s   *Server
	ctx context.Context // relayed calls run under it (not cancelled on shutdown)
	handoff

	start sync.Once
	idle  atomic.Int32 // goroutines waiting in the inner Accept

	mu     sync.Mutex
	closed bool
	calls  sync.WaitGroup // relayed calls in flight
}

func newRelayListener(ctx context.Context, ln net.Listener, s *Server) *relayListener {
	return &relayListener{Listener: ln, s: s, ctx: ctx, handoff: newHandoff()}
}

// Accept returns the next connection that is not a relayed call.
func (l *relayListener) Accept() (net.Conn, error) {
	l.start.Do(func() { go l.acceptLoop() })
	return l.next()
}

// maxIdleAcceptors bounds the goroutines that wait in Accept between
// calls (see [relayListener.acceptLoop]).
const maxIdleAcceptors = 2

// acceptLoop accepts the next connection and sniffs it itself: the call
// goes on on the goroutine that the connection woke, without waiting for
// another to ask the listener again (which finds nothing, and parks)
// first. When no other goroutine is left waiting in Accept it starts one
// before it serves, so that a slow connection never holds up the next.
// Once the connection is served it waits in Accept again, unless
// maxIdleAcceptors already do: a goroutine that served a call has the
// stack a call needs, where a new one would grow its stack again,
// copying it several times (7% of the server's CPU a call).
func (l *relayListener) acceptLoop() {
	for {
		l.idle.Add(1)
		c, err := acceptRetrying(l.Listener)
		waiting := l.idle.Add(-1)
		if err != nil {
			l.shut(err)
			return
		}
		if waiting == 0 {
			go l.acceptLoop()
		}
		l.sniff(c)
		if l.idle.Load() >= maxIdleAcceptors {
			return
		}
	}
}

// sniff reads the first bytes of c: a relayed call runs here, anything
// else goes to the HTTP server with the bytes read put back in front.
func (l *relayListener) sniff(c net.Conn) {
	_ = c.SetReadDeadline(time.Now().Add(relaySniffTimeout))
	br := bufio.NewReader(c)
	head, _ := br.Peek(len(hookrelay.CallMagic)) // short: not a call (HTTP applies its own limits)
	if string(head) == hookrelay.CallMagic {
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			c.Close()
			return
		}
		l.calls.Add(1)
		l.mu.Unlock()
		defer l.calls.Done()
		l.s.serveRelayed(l.ctx, c, br)
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	if !l.give(&peekedConn{Conn: c, r: br}) {
		c.Close()
	}
}

// Close stops accepting; relayed calls in flight go on ([relayListener.wait]).
func (l *relayListener) Close() error {
	err := l.Listener.Close()
	l.shut(nil)
	return err
}

func (l *relayListener) shut(err error) {
	l.end(err, func() {
		l.mu.Lock()
		l.closed = true
		l.mu.Unlock()
	})
}

// wait waits for the relayed calls in flight, for up to d.
func (l *relayListener) wait(d time.Duration) {
	finished := make(chan struct{})
	go func() { l.calls.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(d):
		l.s.logger.Printf("shutdown: relayed hook calls still running after %v", d)
	}
}

// peekedConn is a connection whose first bytes were read into r.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// CloseWrite half-closes the connection, as the HTTP server does to a
// unix connection before closing it after an error.
func (c *peekedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// serveRelayed runs the relayed call on c (its bytes from br) and writes
// the answer. A call from another user, a malformed call or a panic gets
// no answer: the connection is closed, the client runs the full binary
// (which fails closed on its own).
func (s *Server) serveRelayed(ctx context.Context, c net.Conn, br *bufio.Reader) {
	defer c.Close()
	defer func() {
		if p := recover(); p != nil {
			s.logger.Printf("hook relay: internal error: %v", p)
		}
	}()
	s.last.Store(time.Now().UnixNano())
	if err := peerUID(c); err != nil {
		s.logger.Printf("%v", err)
		return
	}
	_ = c.SetReadDeadline(time.Now().Add(relayReadTimeout))
	call, err := hookrelay.ReadCall(br)
	if err != nil {
		s.logger.Printf("hook relay: %v", err)
		return
	}
	s.m.relayed()
	var mu sync.Mutex
	answered := false
	reply := func(res hookrelay.Result) {
		mu.Lock()
		defer mu.Unlock()
		if answered {
			return
		}
		answered = true
		_ = c.SetWriteDeadline(time.Now().Add(relayWriteTimeout))
		if _, err := c.Write(hookrelay.AppendResult(nil, res)); err != nil {
			s.logger.Printf("hook relay: write answer: %v", err)
		}
	}
	reply(s.relay(ctx, call, reply))
}

// errPeer is a relayed call from a process that is not this user's.
var errPeer = errors.New("hook relay: the caller is not this server's user")
