package server

import (
	"errors"
	"net"
	"sync"
	"time"
)

// handoff is what a listener that serves some connections itself (the
// fast path on TCP, relayed hook calls on the unix socket) shares with the
// HTTP server behind it: the connections it hands over, and the end of
// accepting. The HTTP server's Accept takes from it ([handoff.next]).
type handoff struct {
	http chan net.Conn
	done chan struct{} // closed when the listener is
	once sync.Once
	err  error // the inner Accept's error, once done
}

func newHandoff() handoff {
	return handoff{http: make(chan net.Conn), done: make(chan struct{})}
}

// next is the HTTP server's Accept: the next connection handed over, or
// the inner listener's error (net.ErrClosed after Close) once accepting
// ended.
func (h *handoff) next() (net.Conn, error) {
	select {
	case c := <-h.http:
		return c, nil
	case <-h.done:
		if h.err != nil {
			return nil, h.err
		}
		return nil, net.ErrClosed
	}
}

// give hands c to the HTTP server; it reports false (and c is not taken)
// once accepting has ended.
func (h *handoff) give(c net.Conn) bool {
	select {
	case h.http <- c:
		return true
	case <-h.done:
		return false
	}
}

// end ends accepting once, with the inner listener's error (nil after
// Close); before runs first (under the same once).
func (h *handoff) end(err error, before func()) {
	h.once.Do(func() {
		if before != nil {
			before()
		}
		h.err = err
		close(h.done)
	})
}

// acceptRetrying accepts from ln, sleeping and retrying on a temporary
// error as http.Server does (5 ms doubling to 1 s); any other error is
// returned.
func acceptRetrying(ln net.Listener) (net.Conn, error) {
	var delay time.Duration
	for {
		c, err := ln.Accept()
		var ne net.Error
		if err == nil || !errors.As(err, &ne) || !ne.Timeout() {
			return c, err
		}
		delay = min(max(2*delay, 5*time.Millisecond), time.Second)
		time.Sleep(delay)
	}
}
