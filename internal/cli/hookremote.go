package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/hook"
	"github.com/rivumi/rivumi/server"
	"github.com/spf13/pflag"
)

// remoteFlags make a hook ask a fleet's rivumi-opa or `rivumi serve` by URL
// instead of grading on the machine.
type remoteFlags struct {
	url       string
	tokenFile string
	caFile    string
	fallback  string
}

// register adds the flags; a bad URL or fallback is a flag error, so that
// `rivumi hook install` refuses it rather than installing a hook that
// blocks every call.
func (r *remoteFlags) register(fs *pflag.FlagSet) {
	fs.Func("remote", "grade shell commands by asking the rivumi server at `URL`: a 'rivumi serve' base URL, or rivumi-opa's .../v1/data/rivumi/entry/verdict (https; http only to loopback)", func(v string) error {
		r.url = v
		_, _, err := remoteEndpoint(v)
		return err
	})
	fs.StringVar(&r.tokenFile, "remote-token-file", "", "send the bearer token read from `FILE` to --remote")
	fs.StringVar(&r.caFile, "remote-ca", "", "trust the PEM certificates in `FILE` for --remote besides the system's")
	r.fallback = "block"
	fs.Func("remote-fallback", "when --remote does not answer a verdict: block (the call is blocked; the default) or local (grade in-process)", func(v string) error {
		if v != "block" && v != "local" {
			return fmt.Errorf("want block or local")
		}
		r.fallback = v
		return nil
	})
}

// remoteEndpoint checks a --remote URL and returns the URL to post to and
// whether it is rivumi-opa's data API.
func remoteEndpoint(raw string) (string, bool, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", false, fmt.Errorf("%q: want an http(s) URL", raw)
	}
	if u.User != nil {
		return "", false, fmt.Errorf("no credentials in the URL; use --remote-token-file")
	}
	if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		return "", false, fmt.Errorf("%s: plain http only to a loopback address; use https", u.Redacted())
	}
	switch path := strings.TrimRight(u.Path, "/"); path {
	case "", "/v1/verdict":
		u.Path = "/v1/verdict"
		return u.String(), false, nil
	case opaVerdictPath:
		return u.String(), true, nil
	}
	return "", false, fmt.Errorf("%s: the path is neither a rivumi serve base URL nor %s", u.Redacted(), opaVerdictPath)
}

// opaVerdictPath is the entrypoint rivumi-opa serves verdicts at.
const opaVerdictPath = "/v1/data/" + "rivumi/entry/verdict"

// remoteGrader returns the grader that asks the remote server; any answer
// but a complete verdict is an error (the hook then blocks the call), or,
// with --remote-fallback local, grading falls back to local.
func (r *remoteFlags) grader(local func(context.Context) (hook.Grader, error)) (hook.Grader, error) {
	c, err := r.client()
	if err != nil {
		return nil, err
	}
	switch r.fallback {
	case "block":
		return c.verdict, nil
	case "local":
		return func(ctx context.Context, req server.Request) (engine.Verdict, error) {
			v, err := c.verdict(ctx, req)
			if err == nil {
				return v, nil
			}
			g, lerr := local(ctx)
			if lerr != nil {
				return engine.Verdict{}, fmt.Errorf("%v; in-process: %v", err, lerr)
			}
			return g(ctx, req)
		}, nil
	}
	return nil, fmt.Errorf("--remote-fallback %q: want block or local", r.fallback)
}

// remoteClient posts one request per call.
type remoteClient struct {
	endpoint string // the URL posted to
	opa      bool   // OPA's data API: {"input": …} in, {"result": …} out
	token    string
	hc       *http.Client
}

func (r *remoteFlags) client() (*remoteClient, error) {
	endpoint, opa, err := remoteEndpoint(r.url)
	if err != nil {
		return nil, fmt.Errorf("--remote %v", err)
	}
	c := &remoteClient{endpoint: endpoint, opa: opa}
	if r.tokenFile != "" {
		b, err := os.ReadFile(r.tokenFile)
		if err != nil {
			return nil, fmt.Errorf("--remote-token-file: %v", err)
		}
		if c.token = strings.TrimSpace(string(b)); c.token == "" || strings.ContainsAny(c.token, "\r\n") {
			return nil, fmt.Errorf("--remote-token-file %s: want one non-empty line", r.tokenFile)
		}
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if r.caFile != "" {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		b, err := os.ReadFile(r.caFile)
		if err != nil {
			return nil, fmt.Errorf("--remote-ca: %v", err)
		}
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("--remote-ca %s: no PEM certificate", r.caFile)
		}
		tlsConf.RootCAs = pool
	}
	c.hc = &http.Client{
		Transport: &http.Transport{TLSClientConfig: tlsConf, Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true},
		// The hook's own deadline bounds each call (its context). A
		// redirect could carry the token elsewhere: none is followed.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c, nil
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// remoteAnswer is a verdict as either server writes it; Decision is a
// pointer so that a missing one is told from "allow".
type remoteAnswer struct {
	Decision *engine.Decision `json:"decision"`
	Reasons  []engine.Reason  `json:"reasons"`
	Policy   string           `json:"policy"`
	Error    string           `json:"error"`
}

// maxRemoteAnswer bounds the answer read.
const maxRemoteAnswer = 4 << 20

func (c *remoteClient) verdict(ctx context.Context, req server.Request) (engine.Verdict, error) {
	// The server's disk is not this machine's: it grades the text alone
	// (rivumi-opa's entrypoint knows no follow_symlinks and refuses it).
	req.FollowSymlinks = false
	var body any = req
	if c.opa {
		body = map[string]any{"input": req}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return engine.Verdict{}, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(b))
	if err != nil {
		return engine.Verdict{}, err
	}
	hr.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		hr.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(hr)
	if err != nil {
		return engine.Verdict{}, fmt.Errorf("remote: %v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxRemoteAnswer+1))
	if err != nil {
		return engine.Verdict{}, fmt.Errorf("remote: %v", err)
	}
	if len(raw) > maxRemoteAnswer {
		return engine.Verdict{}, fmt.Errorf("remote: answer over %d bytes", maxRemoteAnswer)
	}
	// serve answers a request it cannot grade with 400 and a deny verdict;
	// anything else but 200 is no verdict.
	if resp.StatusCode != http.StatusOK && (c.opa || resp.StatusCode != http.StatusBadRequest) {
		return engine.Verdict{}, fmt.Errorf("remote: %s: %s", resp.Status, abridged(raw))
	}
	var a remoteAnswer
	if c.opa {
		var env struct {
			Result *json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(raw, &env); err != nil {
			return engine.Verdict{}, fmt.Errorf("remote: bad answer: %v", err)
		}
		if env.Result == nil {
			return engine.Verdict{}, errors.New("remote: rivumi-opa answered no result (is the bundle active? see /health?bundles)")
		}
		raw = *env.Result
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return engine.Verdict{}, fmt.Errorf("remote: bad verdict: %v", err)
	}
	if a.Decision == nil {
		return engine.Verdict{}, fmt.Errorf("remote: the answer holds no decision: %s", abridged(raw))
	}
	v := engine.Verdict{Decision: *a.Decision, Reasons: a.Reasons, Policy: a.Policy}
	if a.Error != "" && v.Decision != engine.Deny {
		return engine.Verdict{}, fmt.Errorf("remote: %s", a.Error)
	}
	return v, nil
}

func abridged(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
