package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/strictjson"
)

// LoadFunc compiles the policy to serve. It is called once by [New] and
// again by every [Server.Reload].
type LoadFunc func(ctx context.Context) (*engine.Engine, error)

// DefaultAddr is where `rivumi serve` listens for HTTP when no transport
// is named: loopback, port 8282 (OPA's own default is 8181, and
// rivumi-opa's 8283, so the three run side by side).
const DefaultAddr = "127.0.0.1:8282"

// Default limits.
const (
	DefaultMaxBody     = 1 << 20 // bytes per request body or stdio line
	DefaultMaxBatch    = 1000    // requests per batch
	DefaultEvalTimeout = engine.DefaultEvalTimeout
)

// Server grades commands for many clients at once. Create it with [New].
type Server struct {
	eng  atomic.Pointer[engine.Engine]
	load LoadFunc
	// reloadMu serialises reloads (evaluations never wait for it).
	reloadMu sync.Mutex

	audit       audit.Sink
	auditLoose  bool // answer even when the audit entry cannot be written
	logger      *log.Logger
	maxBody     int64
	maxBatch    int
	evalTimeout time.Duration
	m           *metrics
	defaults    Request
	badLine     func(line int, reason string)
	// find and engines: one engine per configuration (configs.go).
	find    ConfigFunc
	engines *engineLRU
	// relay runs the thin hook client's calls (relay.go).
	relay HookRelay
	// last is when the last request came (unix nanoseconds).
	last atomic.Int64
	// noFastPath leaves every request to net/http (fasthttp.go; tests);
	// fastServed counts the requests answered on the fast path.
	noFastPath bool
	fastServed atomic.Int64
}

// Option configures a [Server].
type Option func(*Server)

// WithAudit logs every verdict to sink (kind "grade", source "serve"). No
// answer goes out without its record: when sink fails, the answer is deny
// (rule [RuleAuditFailed], with an "error"; HTTP 503), unless
// [WithBestEffortAudit] is given too.
func WithAudit(sink audit.Sink) Option { return func(s *Server) { s.audit = sink } }

// WithBestEffortAudit makes the server give its verdicts even when their
// audit entries cannot be written (the failure goes to the logger and the
// rivumi_audit_errors_total metric). An operator's explicit choice: such
// verdicts leave no trace.
func WithBestEffortAudit() Option { return func(s *Server) { s.auditLoose = true } }

// WithLogger sets where the server reports reloads and errors (default:
// nowhere).
func WithLogger(l *log.Logger) Option { return func(s *Server) { s.logger = l } }

// WithLimits sets the largest request body (or stdio line) in bytes, the
// largest batch, and the deadline of one evaluation. Zero keeps a default.
func WithLimits(maxBody int64, maxBatch int, evalTimeout time.Duration) Option {
	return func(s *Server) {
		if maxBody > 0 {
			s.maxBody = maxBody
		}
		if maxBatch > 0 {
			s.maxBatch = maxBatch
		}
		if evalTimeout > 0 {
			s.evalTimeout = evalTimeout
		}
	}
}

// WithDefaults fills the cwd, workspace, home and shell of each request
// that leaves them empty with those of d (for `policy eval --batch`, run in
// one project), and sets FollowSymlinks when d does. Without it, an empty
// field stays empty.
func WithDefaults(d Request) Option { return func(s *Server) { s.defaults = d } }

// WithBadLine has [Server.ServeStdio] call f for every request it could not
// read or grade as asked (an overlong line, bad JSON, an invalid request),
// with the line's number (from 1) and the reason. The line is still
// answered by a deny.
func WithBadLine(f func(line int, reason string)) Option { return func(s *Server) { s.badLine = f } }

// New loads the policy with load and returns a server for it.
func New(ctx context.Context, load LoadFunc, opts ...Option) (*Server, error) {
	s := &Server{
		load: load, audit: audit.Discard, logger: log.New(io.Discard, "", 0),
		maxBody: DefaultMaxBody, maxBatch: DefaultMaxBatch, evalTimeout: DefaultEvalTimeout,
		m: newMetrics(),
	}
	for _, o := range opts {
		o(s)
	}
	e, err := load(ctx)
	if err != nil {
		return nil, err
	}
	s.eng.Store(e)
	s.m.setPolicy(e.PolicyHash())
	s.last.Store(time.Now().UnixNano())
	return s, nil
}

// Idle returns how long the server has gone without a request (on any
// listener, or stdio): `rivumi serve --idle-exit` stops it past a limit.
func (s *Server) Idle() time.Duration { return time.Duration(time.Now().UnixNano() - s.last.Load()) }

// touched marks a request on every listener.
func (s *Server) touched(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.last.Store(time.Now().UnixNano())
		h.ServeHTTP(w, r)
	})
}

// Engine returns the engine being served.
func (s *Server) Engine() *engine.Engine { return s.eng.Load() }

// Reload compiles the policy again and swaps it in. When the new policy
// fails to load, the old one keeps serving and the error is returned.
// Evaluations in flight finish with the engine they started with.
func (s *Server) Reload(ctx context.Context) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	e, err := s.load(ctx)
	if err != nil {
		s.m.reload(false)
		s.logger.Printf("reload failed, still serving policy %s: %v", s.Engine().PolicyHash(), err)
		return err
	}
	old := s.eng.Swap(e)
	s.engines.reset()
	s.m.reload(true)
	s.m.setPolicy(e.PolicyHash())
	s.logger.Printf("reloaded policy %s (was %s)", e.PolicyHash(), old.PolicyHash())
	return nil
}

// Grade answers one request; transport labels the metrics ("http",
// "stdio"). It never fails: a bad request is a deny response. Every
// answer is written to the decision log, bad requests too.
func (s *Server) Grade(ctx context.Context, r *Request, transport string) Response {
	return s.grade(ctx, r, transport, true)
}

// grade is [Server.Grade]; log false leaves the decision log to the
// caller (a hook, which logs its own answer with what was enforced).
func (s *Server) grade(ctx context.Context, r *Request, transport string, log bool) Response {
	s.fillDefaults(r)
	logVerdict := s.logVerdict
	if !log {
		logVerdict = func(context.Context, *Request, Response) error { return nil }
	}
	if err := r.Validate(); err != nil {
		s.m.badRequest(transport)
		resp := badInput(s.eng.Load().PolicyHash(), r, err)
		if lerr := logVerdict(ctx, r, resp); lerr != nil {
			s.logger.Printf("audit: %v", lerr)
		}
		return resp
	}
	e, err := s.engineFor(ctx, r)
	if err != nil {
		resp := policyFailure(s.eng.Load().PolicyHash(), r, err)
		if lerr := logVerdict(ctx, r, resp); lerr != nil {
			s.logger.Printf("audit: %v", lerr)
		}
		return resp
	}
	ctx, cancel := context.WithTimeout(ctx, s.evalTimeout)
	defer cancel()
	start := time.Now()
	var resp Response
	if r.Command != nil {
		resp.Command = *r.Command
		resp.Verdict = e.EvaluateText(ctx, *r.Command, evalOptions(r)...)
	} else {
		resp.Argv = r.Argv
		resp.Verdict = e.EvaluateArgv(ctx, r.Argv, evalOptions(r)...)
	}
	d := resp.Decision
	if d < engine.Allow || d > engine.Deny {
		d = engine.Deny
	}
	s.m.verdict(d, transport, time.Since(start).Seconds())
	if err := logVerdict(ctx, r, resp); err != nil {
		s.m.auditError()
		s.logger.Printf("audit: %v", err)
		if !s.auditLoose {
			return unrecorded(resp, err)
		}
	}
	return resp
}

func (s *Server) fillDefaults(r *Request) {
	r.FollowSymlinks = r.FollowSymlinks || s.defaults.FollowSymlinks
	if r.Cwd != "" && r.Workspace == "" {
		// The request's own directory names its project; the server's
		// default workspace belongs to another directory (a batch's
		// current one), and taking it would make the cwd a stranger
		// inside it.
		r.Workspace = projectOf(r.Cwd, r.FollowSymlinks)
	}
	for _, f := range []struct {
		dst *string
		def string
	}{
		{&r.Cwd, s.defaults.Cwd}, {&r.Workspace, s.defaults.Workspace}, {&r.Home, s.defaults.Home}, {&r.Shell, s.defaults.Shell},
	} {
		if *f.dst == "" {
			*f.dst = f.def
		}
	}
}

// projectOf is the project a cwd belongs to: with the disk (disk true),
// the nearest directory at or above it holding .git, as the hooks find
// it; else, or when none does, the cwd itself. A relative cwd is left to
// [Request.Validate].
func projectOf(cwd string, disk bool) string {
	if !filepath.IsAbs(cwd) {
		return ""
	}
	cwd = filepath.Clean(cwd)
	if disk {
		for d := cwd; ; {
			if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
				return d
			}
			up := filepath.Dir(d)
			if up == d {
				break
			}
			d = up
		}
	}
	return cwd
}

// logVerdict writes the audit entry of one answer (r nil: a request that
// could not be decoded).
func (s *Server) logVerdict(ctx context.Context, r *Request, resp Response) error {
	if s.audit == audit.Discard {
		return nil
	}
	if r == nil {
		r = &Request{}
	}
	ent := audit.Entry{
		Kind: audit.KindGrade, Source: "serve", Cwd: r.Cwd, Workspace: r.Workspace,
		Argv: r.Argv, Decision: resp.Decision.String(), Verdict: resp.Decision.String(), Policy: resp.Policy,
		Error: resp.Error,
	}
	if r.Command != nil {
		ent.Command = *r.Command
	}
	for _, rs := range resp.Reasons {
		ent.Rules = append(ent.Rules, rs.Rule)
	}
	for _, g := range r.Grants {
		ent.Grants = append(ent.Grants, audit.Grant{Prefix: g.Prefix, Rules: g.Rules})
	}
	return s.audit.Log(context.WithoutCancel(ctx), ent)
}

// Handler returns the HTTP API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/verdict", s.handleVerdict)
	mux.HandleFunc("POST /v1/verdicts", s.handleVerdicts)
	mux.HandleFunc("GET /healthz", s.handleHealth)
	mux.Handle("GET /metrics", s.m)
	return mux
}

// Health is the body of GET /healthz.
type Health struct {
	Status string `json:"status"`
	Policy string `json:"policy"`
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, Health{Status: "ok", Policy: s.Engine().PolicyHash()})
}

func (s *Server) handleVerdict(w http.ResponseWriter, r *http.Request) {
	body, code, err := s.readBody(w, r)
	defer putBuf(body)
	if err != nil {
		s.m.badRequest("http")
		writeResponses(w, code, false, s.badBody(r.Context(), err))
		return
	}
	code, resp := s.answerVerdict(r.Context(), body.Bytes(), !callerLogs(r))
	writeResponses(w, code, false, resp)
}

// answerVerdict decodes and grades the body of a POST /v1/verdict and
// returns the response with its HTTP status (log false: the caller writes
// the audit entry, see CallerLogsHeader). The HTTP handler and the fast
// path (fasthttp.go) answer with it.
func (s *Server) answerVerdict(ctx context.Context, body []byte, log bool) (int, Response) {
	var req Request
	if err := decodeRequest(body, &req); err != nil {
		s.m.badRequest("http")
		return http.StatusBadRequest, s.badBody(ctx, err)
	}
	resp := s.grade(ctx, &req, "http", log)
	code := http.StatusOK
	switch {
	case resp.unrecorded:
		code = http.StatusServiceUnavailable
	case resp.Error != "":
		code = http.StatusBadRequest
	}
	return code, resp
}

func (s *Server) handleVerdicts(w http.ResponseWriter, r *http.Request) {
	var reqs []json.RawMessage
	if code, err := s.decodeBody(w, r, &reqs); err != nil {
		s.m.badRequest("http")
		writeResponses(w, code, false, s.badBody(r.Context(), err))
		return
	}
	if len(reqs) > s.maxBatch {
		s.m.badRequest("http")
		writeResponses(w, http.StatusRequestEntityTooLarge, false, s.badBody(r.Context(),
			fmt.Errorf("batch of %d requests is over the limit of %d", len(reqs), s.maxBatch)))
		return
	}
	out := make([]Response, len(reqs))
	code := http.StatusOK
	for i, raw := range reqs {
		out[i] = s.gradeRaw(r.Context(), raw, "http")
		if out[i].unrecorded {
			code = http.StatusServiceUnavailable
		}
	}
	writeResponses(w, code, true, out...)
}

// gradeRaw decodes and grades one request of a batch; bad ones are deny.
func (s *Server) gradeRaw(ctx context.Context, raw []byte, transport string) Response {
	var req Request
	if err := decodeRequest(raw, &req); err != nil {
		s.m.badRequest(transport)
		return s.badBody(ctx, err)
	}
	return s.Grade(ctx, &req, transport)
}

// badBody is the deny answered to a body that does not decode, written to
// the decision log like every answer.
func (s *Server) badBody(ctx context.Context, err error) Response {
	resp := badInput(s.Engine().PolicyHash(), nil, err)
	if lerr := s.logVerdict(ctx, nil, resp); lerr != nil {
		s.logger.Printf("audit: %v", lerr)
	}
	return resp
}

// CallerLogsHeader, set to "caller" on a request over a unix socket, says
// that the caller writes the request's audit entry itself: a hook, which
// logs its answer with what was enforced (or that it was only shadowed),
// where its own --audit says. The server then leaves it out of its
// decision log, so that no hook call is logged twice nor as enforced when
// it was not. Over TCP the header is ignored: a remote caller cannot keep
// its requests out of the log.
const CallerLogsHeader = "Rivumi-Audit"

// callerLogs reports a request whose caller logs it (see CallerLogsHeader).
func callerLogs(r *http.Request) bool {
	if r.Header.Get(CallerLogsHeader) != "caller" {
		return false
	}
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && a.Network() == "unix"
}

// decodeBody reads a size-limited JSON body into v.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any) (int, error) {
	buf, code, err := s.readBody(w, r)
	defer putBuf(buf)
	if err != nil {
		return code, err
	}
	if err := decodeStrict(buf.Bytes(), v); err != nil {
		return http.StatusBadRequest, err
	}
	return http.StatusOK, nil
}

// readBody reads r's body, up to the size limit, into a pooled buffer
// (returned even with an error; give it back with putBuf): decoding
// copies what it keeps.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (*bytes.Buffer, int, error) {
	buf := jsonBufs.Get().(*bytes.Buffer)
	buf.Reset()
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, s.maxBody)); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return buf, http.StatusRequestEntityTooLarge, fmt.Errorf("request body over %d bytes", s.maxBody)
		}
		return buf, http.StatusBadRequest, fmt.Errorf("read body: %v", err)
	}
	return buf, http.StatusOK, nil
}

// putBuf gives a buffer back to jsonBufs (unless it grew too large).
func putBuf(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledBuf {
		jsonBufs.Put(buf)
	}
}

// decodeStrict decodes exactly one JSON value with no unknown, case-variant
// or duplicate keys and nothing after it (see [strictjson.Decode]).
func decodeStrict(b []byte, v any) error {
	if err := strictjson.Decode(b, v); err != nil {
		return fmt.Errorf("bad JSON: %w", err)
	}
	return nil
}

// jsonBufs holds the buffers responses are encoded into: a verdict is a
// few hundred bytes, and one buffer per request would be garbage.
var jsonBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuf is the largest buffer put back in jsonBufs (a big batch's
// answer is not kept around).
const maxPooledBuf = 64 << 10

// Header values shared by every JSON response (net/http only reads them).
var jsonContentType = []string{"application/json"}

// writeJSON sends v as one line of JSON (what json.Marshal gives, and a
// newline), with its Content-Length.
func writeJSON(w http.ResponseWriter, code int, v any) {
	send(w, func(buf *bytes.Buffer) int {
		if err := json.NewEncoder(buf).Encode(v); err != nil {
			buf.Reset()
			buf.WriteString(`{"decision":"deny","error":"encode response"}` + "\n")
			return http.StatusInternalServerError
		}
		return code
	})
}

// writeResponses sends one response (batch false: rs holds one) or a
// batch's array, as one line of JSON: what writeJSON would send, encoded
// by appendResponse.
func writeResponses(w http.ResponseWriter, code int, batch bool, rs ...Response) {
	send(w, func(buf *bytes.Buffer) int {
		b := buf.AvailableBuffer()
		if batch {
			b = append(b, '[')
		}
		for i := range rs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendResponse(b, &rs[i])
		}
		if batch {
			b = append(b, ']')
		}
		buf.Write(append(b, '\n'))
		return code
	})
}

// send writes what encode puts in a pooled buffer as a JSON response,
// with its Content-Length, under the status encode returns.
func send(w http.ResponseWriter, encode func(*bytes.Buffer) int) {
	buf := jsonBufs.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledBuf {
			jsonBufs.Put(buf)
		}
	}()
	code := encode(buf)
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(buf.Len())}
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

// Serve serves the HTTP API on ln (on a unix socket, the hook relay
// too: [WithHookRelay]) until ctx is cancelled, then shuts down
// gracefully: it stops accepting, lets requests and relayed calls in
// flight finish (for up to 10 s) and returns nil. Slow clients are cut
// off by read and write timeouts. On a unix socket a connection from
// another user's process is closed unanswered (Linux: SO_PEERCRED); a
// cross-origin browser request is refused on every listener, and on a
// loopback address so is a Host header that is not a loopback name.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	var relay *relayListener
	unix := ln.Addr().Network() == "unix"
	if unix {
		ln = peerListener{Listener: ln, logf: s.logger.Printf}
	}
	if unix && s.relay != nil {
		relay = newRelayListener(context.WithoutCancel(ctx), ln, s)
		ln = relay
	}
	ta, _ := ln.Addr().(*net.TCPAddr)
	var fast *fastListener
	if ta != nil && ta.IP.IsLoopback() && !s.noFastPath {
		fast = newFastListener(context.WithoutCancel(ctx), ln, s)
		ln = fast
	}
	srv := &http.Server{
		Handler:           s.touched(localHTTP(s.Handler(), ta != nil && ta.IP.IsLoopback())),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		ErrorLog:          s.logger,
	}
	done := make(chan error, 1)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if fast != nil {
			fast.shutdown(time.Until(deadlineOf(sctx)))
		}
		err := srv.Shutdown(sctx)
		if relay != nil {
			relay.wait(time.Until(deadlineOf(sctx)))
		}
		done <- err
	}()
	err := srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return <-done
	}
	return err
}

func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}
