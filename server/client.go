package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/usersock"
)

// Client calls a rivumi server. Create it with [NewClient] or
// [NewUnixClient]; it is safe for concurrent use.
type Client struct {
	hc         *http.Client
	base       string
	callerLogs bool
}

// CallerLogs returns a client whose requests the server leaves out of its
// decision log, because the caller writes their audit entries itself (a
// hook: see [CallerLogsHeader]). Only a server on a unix socket honours
// it.
func (c *Client) CallerLogs() *Client {
	d := *c
	d.callerLogs = true
	return &d
}

// NewClient returns a client for the HTTP server at base
// ("http://127.0.0.1:8282", [DefaultAddr]).
func NewClient(base string) *Client {
	return &Client{hc: &http.Client{Timeout: 30 * time.Second}, base: base}
}

// NewUnixClient returns a client for the server on the unix socket path.
// It refuses a server that is not this user's process
// ([usersock.PeerIsUs]), whoever owns the socket file.
func NewUnixClient(path string) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, "unix", path)
			if err != nil {
				return nil, err
			}
			if uc, ok := c.(*net.UnixConn); ok {
				if err := usersock.PeerOf(uc); err != nil {
					c.Close()
					return nil, fmt.Errorf("%s: %w", path, err)
				}
			}
			return c, nil
		},
		MaxIdleConnsPerHost: 64,
	}
	return &Client{hc: &http.Client{Transport: tr, Timeout: 30 * time.Second}, base: "http://rivumi"}
}

// Verdict grades one request. A response the server marks as an error
// (bad request) is returned as a deny verdict together with an error.
func (c *Client) Verdict(ctx context.Context, r Request) (engine.Verdict, error) {
	var resp Response
	if err := c.post(ctx, "/v1/verdict", r, &resp); err != nil {
		return engine.Verdict{}, err
	}
	return verdictOf(resp)
}

// verdictOf is the verdict a client takes from resp.
func verdictOf(resp Response) (engine.Verdict, error) {
	if resp.Error != "" {
		resp.Verdict.Decision = engine.Deny
		return resp.Verdict, fmt.Errorf("server: %s", resp.Error)
	}
	if !resp.Verdict.Decision.Valid() {
		// {} or a verdict without a decision: not an answer.
		return engine.Verdict{Decision: engine.Deny}, fmt.Errorf("server: response without a decision")
	}
	return resp.Verdict, nil
}

// Verdicts grades a batch; the responses are in request order.
func (c *Client) Verdicts(ctx context.Context, rs []Request) ([]Response, error) {
	var out []Response
	if err := c.post(ctx, "/v1/verdicts", rs, &out); err != nil {
		return nil, err
	}
	if len(out) != len(rs) {
		return nil, fmt.Errorf("server answered %d verdicts for %d requests", len(out), len(rs))
	}
	for i := range out {
		if !out[i].Verdict.Decision.Valid() {
			out[i].Verdict.Decision = engine.Deny // a missing decision fails closed
			if out[i].Error == "" {
				out[i].Error = "response without a decision"
			}
		}
	}
	return out, nil
}

// Health returns the server's status and policy hash.
func (c *Client) Health(ctx context.Context) (Health, error) {
	var h Health
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/healthz", nil)
	if err != nil {
		return h, err
	}
	return h, c.do(req, &h)
}

func (c *Client) post(ctx context.Context, path string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.callerLogs {
		req.Header.Set(CallerLogsHeader, "caller")
	}
	return c.do(req, out)
}

func (c *Client) do(req *http.Request, out any) error {
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusBadRequest {
		return fmt.Errorf("server: %s: %s", resp.Status, bytes.TrimSpace(body))
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("server: bad response: %v", err)
	}
	return nil
}
