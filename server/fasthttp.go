package server

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The fast path: on a loopback TCP listener, POST /v1/verdict requests of
// the plainest form are answered by a loop that reads, grades and writes
// on the connection's own goroutine, without net/http's request objects,
// header maps and background reads (on two cores net/http's machinery
// around a verdict costs about as much CPU as the verdict).
//
// It takes a request only when all of it is already read and every byte
// of its head is in the form [parseFastHead] accepts: the request line
// "POST /v1/verdict HTTP/1.1", CRLF line ends, at most one Host (a
// loopback name) and one Content-Length (digits, within the body limit),
// and otherwise only Content-Type, User-Agent, Accept, Accept-Encoding and
// "Connection: keep-alive". Anything else — another method or path, a
// Transfer-Encoding, an Origin or Sec-Fetch-Site header, an Expect, a
// Rivumi-Audit header, obs-folding, a bare LF or CR, a control character,
// a head or body not yet fully read, a head over fastBuf — hands the
// connection, with every byte read and not yet answered, to net/http, which
// serves it from then on exactly as it serves any connection. The fast
// path answers what the handler answers for the same request
// (TestFastPathMatchesNetHTTP), with the same deadlines: a connection idle
// for IdleTimeout is closed, a response must go out within WriteTimeout.

// fastBuf is the read buffer of a connection on the fast path: a request
// (head and body) must fit in it to be taken there.
const fastBuf = 8 << 10

// Timeouts of the fast path, those of the http.Server that Serve runs.
const (
	fastIdleTimeout  = 60 * time.Second
	fastWriteTimeout = 30 * time.Second
)

// fastListener sits between a loopback TCP listener and the HTTP server:
// it accepts every connection and serves it on the fast path; a
// connection whose request the fast path does not take goes to the HTTP
// server's Accept, with the bytes read put back in front.
type fastListener struct {
	net.Listener
	s   *Server
	ctx context.Context // requests are graded under it (not cancelled on shutdown)
	handoff

	start sync.Once

	closing atomic.Bool // set by shutdown: idle connections close
	mu      sync.Mutex
	conns   map[*fastConn]struct{}
	wg      sync.WaitGroup // connections on the fast path
}

// fastConn is a connection on the fast path.
type fastConn struct {
	c    net.Conn
	idle atomic.Bool // waiting for a request
}

func newFastListener(ctx context.Context, ln net.Listener, s *Server) *fastListener {
	return &fastListener{Listener: ln, s: s, ctx: ctx, handoff: newHandoff(), conns: map[*fastConn]struct{}{}}
}

// Accept returns the next connection for the HTTP server.
func (l *fastListener) Accept() (net.Conn, error) {
	l.start.Do(func() { go l.acceptLoop() })
	return l.next()
}

func (l *fastListener) acceptLoop() {
	for {
		c, err := acceptRetrying(l.Listener)
		if err != nil {
			l.end(err, nil)
			return
		}
		fc := &fastConn{c: c}
		l.mu.Lock()
		if l.closing.Load() {
			l.mu.Unlock()
			c.Close()
			continue
		}
		l.conns[fc] = struct{}{}
		l.wg.Add(1)
		l.mu.Unlock()
		go l.serve(fc)
	}
}

// Close stops accepting; connections on the fast path go on until
// [fastListener.shutdown].
func (l *fastListener) Close() error {
	err := l.Listener.Close()
	l.end(nil, nil)
	return err
}

// shutdown closes the idle connections on the fast path at once and the
// others after the response they are writing, waiting for up to d; past
// it, it closes them all.
func (l *fastListener) shutdown(d time.Duration) {
	l.closing.Store(true)
	l.mu.Lock()
	for fc := range l.conns {
		if fc.idle.Load() {
			fc.c.Close()
		}
	}
	l.mu.Unlock()
	finished := make(chan struct{})
	go func() { l.wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(d):
		l.s.logger.Printf("shutdown: connections still busy after %v", d)
		l.mu.Lock()
		for fc := range l.conns {
			fc.c.Close()
		}
		l.mu.Unlock()
	}
}

func (l *fastListener) forget(fc *fastConn) {
	l.mu.Lock()
	delete(l.conns, fc)
	l.mu.Unlock()
	l.wg.Done()
}

// serve answers the requests of fc that the fast path takes, and hands
// the connection to the HTTP server at the first one it does not.
func (l *fastListener) serve(fc *fastConn) {
	c := fc.c
	handed := false
	defer func() {
		if p := recover(); p != nil {
			const size = 64 << 10
			buf := make([]byte, size)
			buf = buf[:runtime.Stack(buf, false)]
			l.s.logger.Printf("http: panic serving %v: %v\n%s", c.RemoteAddr(), p, buf)
		}
		if !handed {
			c.Close()
		}
		l.forget(fc)
	}()
	br := bufio.NewReaderSize(c, fastBuf)
	var out, js []byte
	for {
		// Idle (closed by shutdown) until a byte of the next request
		// comes; the closing flag is read after idle is set, so that
		// either shutdown sees this connection idle or it sees the flag.
		fc.idle.Store(true)
		if l.closing.Load() {
			return
		}
		_ = c.SetReadDeadline(time.Now().Add(fastIdleTimeout))
		if _, err := br.Peek(1); err != nil {
			return
		}
		fc.idle.Store(false)
		buf, _ := br.Peek(br.Buffered())
		n, body, ok := parseFastHead(buf, l.s.maxBody)
		if !ok {
			// net/http sets its own deadlines for each request.
			_ = c.SetDeadline(time.Time{})
			handed = l.give(&peekedConn{Conn: c, r: br})
			return
		}
		now := time.Now()
		l.s.last.Store(now.UnixNano())
		code, resp := l.s.answerVerdict(l.ctx, body, true)
		js = append(appendResponse(js[:0], &resp), '\n')
		out = appendFastResponse(out[:0], now, code, js)
		_, _ = br.Discard(n)
		l.s.fastServed.Add(1)
		_ = c.SetWriteDeadline(now.Add(fastWriteTimeout))
		if _, err := c.Write(out); err != nil {
			return
		}
		if cap(out) > maxPooledBuf {
			out, js = nil, nil
		}
	}
}

// fastRequestLine is the only request line the fast path takes.
const fastRequestLine = "POST /v1/verdict HTTP/1.1\r\n"

// parseFastHead reads the request at the start of buf: n is its length
// (head and body) and body its body, when the whole request is in buf and
// its head is in the form the fast path takes (see the top of this file);
// ok is false otherwise, and the request goes to net/http.
func parseFastHead(buf []byte, maxBody int64) (n int, body []byte, ok bool) {
	if !bytes.HasPrefix(buf, []byte(fastRequestLine)) {
		return 0, nil, false
	}
	end := bytes.Index(buf, []byte("\r\n\r\n"))
	if end < 0 {
		return 0, nil, false // not all read, or over fastBuf
	}
	h := buf[len(fastRequestLine) : end+2] // header lines, each ending in CRLF
	host, length := false, -1
	for len(h) > 0 {
		i := bytes.Index(h, []byte("\r\n"))
		line := h[:i]
		h = h[i+2:]
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return 0, nil, false // obs-fold, no name, no colon
		}
		name, value := line[:colon], trimOWS(line[colon+1:])
		for _, c := range name {
			if !isTokenByte(c) {
				return 0, nil, false
			}
		}
		for _, c := range value {
			if c < ' ' && c != '\t' || c > '~' {
				return 0, nil, false // CTLs (a bare CR or LF among them), DEL, obs-text
			}
		}
		switch {
		case equalFold(name, "host"):
			if host || !fastHost(value) {
				return 0, nil, false
			}
			host = true
		case equalFold(name, "content-length"):
			if length >= 0 || len(value) == 0 || len(value) > 9 {
				return 0, nil, false
			}
			length = 0
			for _, c := range value {
				if c < '0' || c > '9' {
					return 0, nil, false
				}
				length = length*10 + int(c-'0')
			}
		case equalFold(name, "connection"):
			if !equalFold(value, "keep-alive") {
				return 0, nil, false
			}
		case equalFold(name, "content-type"), equalFold(name, "user-agent"), equalFold(name, "accept"),
			equalFold(name, "accept-encoding"):
		default:
			return 0, nil, false
		}
	}
	if !host || length < 0 || int64(length) > maxBody {
		return 0, nil, false
	}
	start := end + 4
	if len(buf)-start < length {
		return 0, nil, false // the body is not all read
	}
	return start + length, buf[start : start+length], true
}

// fastHost reports whether a Host header value is a loopback name the
// fast path takes: localhost, 127.0.0.1 or [::1] (case as given), with or
// without a port of digits. Every other name goes to net/http, which
// checks it (localHTTP).
func fastHost(v []byte) bool {
	name := v
	if i := bytes.LastIndexByte(v, ':'); i >= 0 && !bytes.HasSuffix(v, []byte("]")) {
		name = v[:i]
		port := v[i+1:]
		if len(port) == 0 || len(port) > 5 {
			return false
		}
		for _, c := range port {
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	switch string(name) {
	case "localhost", "127.0.0.1", "[::1]":
		return true
	}
	return false
}

// isTokenByte reports whether c may appear in a header name (RFC 9110
// tchar).
func isTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// equalFold reports whether b is s (lower case ASCII) in any case.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// appendFastResponse appends the HTTP/1.1 response that the handler
// writes for code and body (the JSON line): the same status, headers
// (Content-Type, Date, Content-Length) and body.
func appendFastResponse(b []byte, now time.Time, code int, body []byte) []byte {
	b = append(b, "HTTP/1.1 "...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, ' ')
	b = append(b, http.StatusText(code)...)
	b = append(b, "\r\nContent-Type: application/json\r\nDate: "...)
	b = now.UTC().AppendFormat(b, http.TimeFormat)
	b = append(b, "\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	return append(b, body...)
}
