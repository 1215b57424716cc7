package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// cmdLoad drives POST /v1/verdict with c clients (keep-alive, one
// connection each) for a fixed duration, bounded by -max requests. It only
// targets loopback addresses.
//
// The load shares the machine with the server, so the client should cost
// little: with -client raw (the default) each client writes its request
// and reads the response on its own connection in one goroutine, as wrk
// does; -client net/http uses Go's HTTP client (a reader and a writer
// goroutine per connection, header maps per request), which on 2 cores
// spends about two thirds of what the server does per request. The note
// reports the client's CPU per request beside the server's.
func cmdLoad(args []string) error {
	fs := flag.NewFlagSet("load", flag.ExitOnError)
	target := fs.String("url", "", "server base URL (http://127.0.0.1:PORT)")
	clients := fs.Int("c", 16, "concurrent clients")
	dur := fs.Duration("d", 10*time.Second, "measuring time")
	warm := fs.Duration("warmup", time.Second, "unmeasured load first")
	maxReq := fs.Int64("max", 2_000_000, "stop after this many requests whatever the time")
	cmdsFile := fs.String("cmds", "", "commands (JSON strings, one a line)")
	uniqueCwd := fs.Bool("unique-cwd", false, "give every request its own cwd and workspace, so that no segment result is cached")
	pid := fs.Int("pid", 0, "the server's PID, to report the CPU time it spent per verdict")
	client := fs.String("client", "raw", "raw (HTTP/1.1 written and read in one goroutine per connection) or net/http")
	path := fs.String("path", "/v1/verdict", "the endpoint's path")
	bodyKind := fs.String("body", "rivumi", "rivumi ({\"command\":…}) or opa ({\"input\":{\"command\":…}}, for OPA's data API)")
	id := fs.String("id", "", "result id")
	out := fs.String("out", "", "append the result to this TSV file")
	fs.Parse(args)
	u, err := url.Parse(*target)
	if err != nil || u.Scheme != "http" {
		return fmt.Errorf("load: -url %q: want http://127.0.0.1:PORT", *target)
	}
	ip := net.ParseIP(u.Hostname())
	if u.Hostname() == "localhost" {
		ip = net.IPv4(127, 0, 0, 1)
	}
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("load: %s is not a loopback address; refusing", u.Host)
	}
	if *clients < 1 || *clients > 256 || *dur <= 0 || *dur > 2*time.Minute {
		return errors.New("load: want 1..256 clients and a duration up to 2m")
	}
	cmds, err := readCmds(*cmdsFile)
	if err != nil {
		return err
	}
	bodies, err := newBodies(cmds, *bodyKind, *uniqueCwd)
	if err != nil {
		return err
	}
	var newClient func() poster
	switch *client {
	case "raw":
		newClient = func() poster { return &rawClient{host: u.Host, path: *path} }
	case "net/http":
		tr := &http.Transport{MaxIdleConnsPerHost: *clients, MaxConnsPerHost: *clients, DisableCompression: true}
		hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		endpoint := strings.TrimRight(*target, "/") + *path
		newClient = func() poster { return &stdClient{hc: hc, url: endpoint} }
	default:
		return fmt.Errorf("load: -client %q: want raw or net/http", *client)
	}

	var seq, sent atomic.Int64
	type result struct {
		durs []time.Duration
		errs int
		err  string
	}
	run := func(ctx context.Context, record bool) []result {
		res := make([]result, *clients)
		var wg sync.WaitGroup
		for w := range *clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := &res[w]
				pc := newClient()
				defer pc.close()
				var body []byte
				for ctx.Err() == nil && sent.Add(1) <= *maxReq {
					body = bodies.appendBody(body[:0], seq.Add(1))
					t0 := time.Now()
					code, err := pc.post(body)
					d := time.Since(t0)
					if ctx.Err() != nil {
						return // cut off by the deadline: not a full request
					}
					if err == nil && code != http.StatusOK {
						err = fmt.Errorf("HTTP %d", code)
					}
					if err != nil {
						r.errs++
						if r.err == "" {
							r.err = err.Error()
						}
						continue
					}
					if record {
						r.durs = append(r.durs, d)
					}
				}
			}()
		}
		wg.Wait()
		return res
	}
	if *warm > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), *warm)
		run(ctx, false)
		cancel()
	}
	sent.Store(0)
	ctx, cancel := context.WithTimeout(context.Background(), *dur)
	cpu0, self0 := procCPU(*pid), procCPU(os.Getpid())
	t0 := time.Now()
	res := run(ctx, true)
	elapsed := time.Since(t0)
	cpu1, self1 := procCPU(*pid), procCPU(os.Getpid())
	cancel()
	var all []time.Duration
	errs, firstErr := 0, ""
	for _, r := range res {
		all = append(all, r.durs...)
		errs += r.errs
		if firstErr == "" {
			firstErr = r.err
		}
	}
	s := quantiles(all)
	rps := float64(len(all)) / elapsed.Seconds()
	note := fmt.Sprintf("c=%d d=%s n=%d client=%s", *clients, dur.String(), len(all), *client)
	if *uniqueCwd {
		note += " unique-cwd"
	}
	if *pid > 0 && cpu1 > cpu0 && len(all) > 0 {
		used := cpu1 - cpu0
		note += fmt.Sprintf(" server-cpu=%.0fus/req server-cores=%.2f", float64(used.Microseconds())/float64(len(all)), used.Seconds()/elapsed.Seconds())
	}
	if self1 > self0 && len(all) > 0 {
		note += fmt.Sprintf(" client-cpu=%.0fus/req", float64((self1-self0).Microseconds())/float64(len(all)))
	}
	if errs > 0 {
		note += fmt.Sprintf(" ERRORS=%d (%s)", errs, firstErr)
	}
	fmt.Fprintf(os.Stderr, "  %-28s %8.0f req/s  p50 %6.3f ms  p99 %6.3f ms  (%s)\n", *id, rps, ms(s.median), ms(s.p99), note)
	return appendResult(*out, *id, s, rps, note)
}

// bodies builds request bodies: the commands JSON-encoded once, and with
// -unique-cwd a cwd and workspace numbered by the request.
type bodies struct {
	cmds      [][]byte // each command as a JSON string
	opa       bool
	uniqueCwd bool
}

func newBodies(cmds []string, kind string, uniqueCwd bool) (*bodies, error) {
	if kind != "rivumi" && kind != "opa" {
		return nil, fmt.Errorf("load: -body %q: want rivumi or opa", kind)
	}
	b := &bodies{opa: kind == "opa", uniqueCwd: uniqueCwd}
	for _, c := range cmds {
		enc, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		b.cmds = append(b.cmds, enc)
	}
	if len(b.cmds) == 0 {
		return nil, errors.New("load: no commands")
	}
	return b, nil
}

// appendBody appends request i's body to dst.
func (b *bodies) appendBody(dst []byte, i int64) []byte {
	if b.opa {
		dst = append(dst, `{"input":`...)
	}
	dst = append(dst, `{"command":`...)
	dst = append(dst, b.cmds[int(i%int64(len(b.cmds)))]...)
	if b.uniqueCwd {
		dir := strconv.AppendInt([]byte("/work/proj"), i, 10)
		dst = append(dst, `,"cwd":"`...)
		dst = append(dst, dir...)
		dst = append(dst, `","workspace":"`...)
		dst = append(dst, dir...)
		dst = append(dst, '"')
	}
	dst = append(dst, '}')
	if b.opa {
		dst = append(dst, '}')
	}
	return dst
}

// poster sends one request body and reads the whole response.
type poster interface {
	post(body []byte) (status int, err error)
	close()
}

// stdClient is Go's HTTP client.
type stdClient struct {
	hc  *http.Client
	url string
}

func (c *stdClient) post(body []byte) (int, error) {
	resp, err := c.hc.Post(c.url, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, err
}

func (c *stdClient) close() {}

// rawClient speaks HTTP/1.1 on one keep-alive TCP connection to host,
// dialled on first use and again after an error or a "Connection: close".
// It reads responses framed by Content-Length or chunked encoding.
type rawClient struct {
	host, path string
	c          net.Conn
	br         *bufio.Reader
	req        []byte
}

func (c *rawClient) post(body []byte) (int, error) {
	if c.c == nil {
		conn, err := net.DialTimeout("tcp", c.host, 5*time.Second)
		if err != nil {
			return 0, err
		}
		c.c, c.br = conn, bufio.NewReaderSize(conn, 16<<10)
	}
	c.req = append(c.req[:0], "POST "...)
	c.req = append(c.req, c.path...)
	c.req = append(c.req, " HTTP/1.1\r\nHost: "...)
	c.req = append(c.req, c.host...)
	c.req = append(c.req, "\r\nContent-Type: application/json\r\nContent-Length: "...)
	c.req = strconv.AppendInt(c.req, int64(len(body)), 10)
	c.req = append(c.req, "\r\n\r\n"...)
	c.req = append(c.req, body...)
	_ = c.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.c.Write(c.req); err != nil {
		c.close()
		return 0, err
	}
	code, keep, err := readResponse(c.br)
	if err != nil || !keep {
		c.close()
	}
	return code, err
}

func (c *rawClient) close() {
	if c.c != nil {
		c.c.Close()
		c.c, c.br = nil, nil
	}
}

// readResponse reads one HTTP/1.1 response from br, discarding its body;
// keep is false when the server closes the connection after it.
func readResponse(br *bufio.Reader) (code int, keep bool, err error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, false, err
	}
	f := bytes.Fields(line)
	if len(f) < 2 || !bytes.HasPrefix(f[0], []byte("HTTP/1.")) {
		return 0, false, fmt.Errorf("bad status line %q", line)
	}
	if code, err = strconv.Atoi(string(f[1])); err != nil {
		return 0, false, fmt.Errorf("bad status line %q", line)
	}
	length, chunked, keep := -1, false, true
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return code, false, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		name, val, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return code, false, fmt.Errorf("bad header line %q", line)
		}
		val = bytes.TrimSpace(val)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(val)); err != nil || length < 0 {
				return code, false, fmt.Errorf("bad Content-Length %q", val)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(val, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			keep = !bytes.EqualFold(val, []byte("close"))
		}
	}
	switch {
	case chunked:
		err = discardChunked(br)
	case length >= 0:
		_, err = br.Discard(length)
	default:
		_, err = io.Copy(io.Discard, br) // delimited by the connection's end
		keep = false
	}
	return code, keep && err == nil, err
}

// discardChunked reads and drops a chunked body and its trailer.
func discardChunked(br *bufio.Reader) error {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		hex, _, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(";"))
		n, err := strconv.ParseUint(string(bytes.TrimSpace(hex)), 16, 31)
		if err != nil {
			return fmt.Errorf("bad chunk size %q", line)
		}
		if n == 0 {
			for { // the trailer, up to its empty line
				line, err := br.ReadSlice('\n')
				if err != nil {
					return err
				}
				if len(bytes.TrimRight(line, "\r\n")) == 0 {
					return nil
				}
			}
		}
		if _, err := br.Discard(int(n) + 2); err != nil {
			return err
		}
	}
}
