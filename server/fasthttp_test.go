package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/benchdata"
)

var (
	fastEngOnce sync.Once
	fastEng     *engine.Engine
	fastEngErr  error
)

// fastServer starts a server on a loopback port (fast false: with the
// fast path off) and returns its address.
func fastServer(t *testing.T, fast bool, opts ...Option) (*Server, string) {
	t.Helper()
	fastEngOnce.Do(func() { fastEng, fastEngErr = engine.New(context.Background()) })
	if fastEngErr != nil {
		t.Fatal(fastEngErr)
	}
	s, err := New(context.Background(), func(context.Context) (*engine.Engine, error) { return fastEng, nil }, opts...)
	if err != nil {
		t.Fatal(err)
	}
	s.noFastPath = !fast
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return s, ln.Addr().String()
}

// exchange sends the parts (a pause between them) on one connection and
// returns every response: "STATUS CONTENT-TYPE BODY"
// each.
func exchange(t *testing.T, addr string, parts ...string) []string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	for i, p := range parts {
		if i > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		if _, err := io.WriteString(c, p); err != nil {
			t.Error(err)
			return nil
		}
	}
	// Every response, until the server closes the connection or has
	// nothing more to say. (Not a half-close: net/http takes a client's
	// EOF for the client gone, and cancels the request in flight.)
	var out []string
	br := bufio.NewReader(c)
	for {
		_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return out
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Error(err)
			return out
		}
		ct := resp.Header.Get("Content-Type")
		if ct == "application/json" && (resp.Header.Get("Date") == "" || resp.ContentLength != int64(len(b))) {
			t.Errorf("response headers: %v", resp.Header)
		}
		out = append(out, strconv.Itoa(resp.StatusCode)+" "+ct+" "+string(b))
	}
}

// post is a request as the fast path takes it, with extra header lines
// (each ending in CRLF) and body.
func post(extra, body string) string {
	return "POST /v1/verdict HTTP/1.1\r\nHost: 127.0.0.1:8282\r\n" + extra +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

const (
	fastBody  = `{"command":"ls -la","cwd":"/tmp","workspace":"/tmp"}`
	fastBody2 = `{"command":"rm -rf /"}`
)

// fastCases are raw requests and how many of them the fast path answers;
// the rest go to net/http.
var fastCases = []struct {
	name  string
	parts []string
	fast  int
}{
	{"plain", []string{post("", fastBody)}, 1},
	{"go client headers", []string{post("User-Agent: Go-http-client/1.1\r\nContent-Type: application/json\r\nAccept-Encoding: gzip\r\nAccept: */*\r\nConnection: keep-alive\r\n", fastBody)}, 1},
	{"header names in any case, OWS", []string{"POST /v1/verdict HTTP/1.1\r\nhOsT:localhost \r\ncontent-LENGTH:\t" + strconv.Itoa(len(fastBody)) + "\r\n\r\n" + fastBody}, 1},
	{"pipelined", []string{post("", fastBody) + post("", fastBody2) + post("", fastBody)}, 3},
	{"keep-alive, two writes", []string{post("", fastBody), post("", fastBody2)}, 2},
	{"bad JSON", []string{post("", `{"command":"ls","Command":"rm"}`)}, 1},
	{"empty body", []string{post("", "")}, 1},
	{"IPv6 host", []string{strings.Replace(post("", fastBody), "127.0.0.1:8282", "[::1]:1", 1)}, 1},
	// net/http's from here on.
	{"CL and TE", []string{post("Transfer-Encoding: chunked\r\n", "0\r\n\r\n")}, 0},
	{"TE chunked", []string{"POST /v1/verdict HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n" + strconv.FormatInt(int64(len(fastBody)), 16) + "\r\n" + fastBody + "\r\n0\r\n\r\n"}, 0},
	{"duplicate CL, same", []string{post("Content-Length: "+strconv.Itoa(len(fastBody))+"\r\n", fastBody)}, 0},
	{"duplicate CL, other", []string{post("Content-Length: 3\r\n", fastBody)}, 0},
	{"CL with sign", []string{"POST /v1/verdict HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: +" + strconv.Itoa(len(fastBody)) + "\r\n\r\n" + fastBody}, 0},
	{"obs-fold", []string{post("User-Agent: a\r\n b\r\n", fastBody)}, 0},
	{"bare LF line ends", []string{"POST /v1/verdict HTTP/1.1\nHost: 127.0.0.1\nContent-Length: " + strconv.Itoa(len(fastBody)) + "\n\n" + fastBody}, 0},
	{"bare LF in a header", []string{post("User-Agent: a\nX-Smuggle: b\r\n", fastBody)}, 0},
	{"bare CR in a header", []string{post("User-Agent: a\rb\r\n", fastBody)}, 0},
	{"NUL in a header", []string{post("User-Agent: a\x00b\r\n", fastBody)}, 0},
	{"space before colon", []string{post("Content-Type : application/json\r\n", fastBody)}, 0},
	{"oversized header", []string{post("User-Agent: "+strings.Repeat("a", 20<<10)+"\r\n", fastBody)}, 0},
	{"head over the fast buffer", []string{post("User-Agent: "+strings.Repeat("a", fastBuf)+"\r\n", fastBody)}, 0},
	{"body over the limit", []string{post("", `{"command":"`+strings.Repeat("x", 5000)+`"}`)}, 0},
	{"no Host", []string{"POST /v1/verdict HTTP/1.1\r\nContent-Length: " + strconv.Itoa(len(fastBody)) + "\r\n\r\n" + fastBody}, 0},
	{"two Hosts", []string{post("Host: 127.0.0.1\r\n", fastBody)}, 0},
	{"foreign Host", []string{strings.Replace(post("", fastBody), "127.0.0.1:8282", "evil.example", 1)}, 0},
	{"Origin", []string{post("Origin: http://evil.example\r\n", fastBody)}, 0},
	{"Sec-Fetch-Site", []string{post("Sec-Fetch-Site: cross-site\r\n", fastBody)}, 0},
	{"Expect", []string{post("Expect: 100-continue\r\n", fastBody)}, 0},
	{"Connection: close", []string{post("Connection: close\r\n", fastBody) + post("", fastBody)}, 0},
	{"caller logs over TCP", []string{post("Rivumi-Audit: caller\r\n", fastBody)}, 0},
	{"HTTP/1.0", []string{strings.Replace(post("", fastBody), "HTTP/1.1", "HTTP/1.0", 1)}, 0},
	{"lower-case method", []string{strings.Replace(post("", fastBody), "POST", "post", 1)}, 0},
	{"query", []string{strings.Replace(post("", fastBody), "/v1/verdict", "/v1/verdict?x=1", 1)}, 0},
	{"absolute form", []string{strings.Replace(post("", fastBody), "/v1/verdict", "http://127.0.0.1/v1/verdict", 1)}, 0},
	{"batch path", []string{strings.Replace(post("", "["+fastBody+"]"), "/v1/verdict", "/v1/verdicts", 1)}, 0},
	{"body split", []string{post("", fastBody)[:len(post("", fastBody))-5], fastBody[len(fastBody)-5:]}, 0},
	{"head split", []string{post("", fastBody)[:20], post("", fastBody)[20:]}, 0},
	{"CL short: the rest is the next request", []string{post("", fastBody) + "GARBAGE\r\n\r\n"}, 1},
	{"fast, then unusual, then fast", []string{post("", fastBody) + post("Origin: http://evil.example\r\n", fastBody) + post("", fastBody2)}, 1},
	{"truncated", []string{post("", fastBody)[:30]}, 0},
}

// The fast path answers exactly what net/http and the handler answer, for
// requests it takes and every unusual or hostile one it hands on
// (request smuggling: CL and TE, duplicate CL, obs-fold, bare LF or CR,
// oversized heads; pipelining; requests split across writes).
func TestFastPathMatchesNetHTTP(t *testing.T) {
	_, slowAddr := fastServer(t, false, WithLimits(4096, 0, 0))
	// One fast server per case, so that each case's count of requests
	// answered on the fast path is its own; the cases run at once (each
	// waits for its servers to have nothing more to say).
	var wg sync.WaitGroup
	for _, c := range fastCases {
		fastS, fastAddr := fastServer(t, true, WithLimits(4096, 0, 0))
		wg.Go(func() {
			got := exchange(t, fastAddr, c.parts...)
			want := exchange(t, slowAddr, c.parts...)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: fast path answers\n%s\nnet/http answers\n%s", c.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if served := fastS.fastServed.Load(); served != int64(c.fast) {
				t.Errorf("%s: %d answered on the fast path, want %d", c.name, served, c.fast)
			}
			if c.fast > 0 && len(got) == 0 {
				t.Errorf("%s: no answer", c.name)
			}
		})
	}
	wg.Wait()
}

// An idle connection on the fast path does not hold up shutdown, and is
// closed by it.
func TestFastPathShutdown(t *testing.T) {
	fastEngOnce.Do(func() { fastEng, fastEngErr = engine.New(context.Background()) })
	if fastEngErr != nil {
		t.Fatal(fastEngErr)
	}
	s, err := New(context.Background(), func(context.Context) (*engine.Engine, error) { return fastEng, nil })
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, post("", fastBody)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != 200 || s.fastServed.Load() != 1 {
		t.Fatalf("HTTP %d, %d on the fast path", resp.StatusCode, s.fastServed.Load())
	}
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return with an idle connection open")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("shutdown took %v", d)
	}
	if _, err := br.ReadByte(); err == nil {
		t.Error("the idle connection is still open")
	}
}

// FuzzParseFastHead: whatever request the fast path takes, net/http reads
// the same way — POST /v1/verdict over HTTP/1.1 with that body and length,
// no transfer coding, a loopback Host, nothing a browser's cross-origin
// request carries — and ends where the fast path says it ends.
func FuzzParseFastHead(f *testing.F) {
	for _, c := range fastCases {
		f.Add([]byte(strings.Join(c.parts, "")))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, body, ok := parseFastHead(b, 4096)
		if !ok {
			return
		}
		br := bufio.NewReader(bytes.NewReader(b))
		req, err := http.ReadRequest(br)
		if err != nil {
			t.Fatalf("fast path took %q; net/http: %v", b, err)
		}
		got, err := io.ReadAll(req.Body)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("%q: body %q (%v), fast path %q", b, got, err, body)
		}
		if req.Method != "POST" || req.URL.Path != "/v1/verdict" || req.URL.RawQuery != "" || req.RequestURI != "/v1/verdict" ||
			req.ProtoMajor != 1 || req.ProtoMinor != 1 || req.ContentLength != int64(len(body)) || req.TransferEncoding != nil ||
			req.Close || !loopbackHost(req.Host) || req.Header.Get("Origin") != "" || req.Header.Get("Sec-Fetch-Site") != "" ||
			req.Header.Get("Expect") != "" || req.Header.Get(CallerLogsHeader) != "" || len(req.Trailer) != 0 {
			t.Fatalf("fast path took %q; net/http reads %+v", b, req)
		}
		if rest := br.Buffered(); len(b)-rest != n {
			t.Fatalf("%q: net/http read %d bytes, fast path %d", b, len(b)-rest, n)
		}
	})
}

// BenchmarkFastPathVerdict is one POST /v1/verdict on the fast path over
// a keep-alive loopback connection (one client: the round trip, the
// syscalls and the verdict, segment cache on), cycling over the mix as
// bodies with a cwd each; ns/op is per verdict.
func BenchmarkFastPathVerdict(b *testing.B) {
	fastEngOnce.Do(func() { fastEng, fastEngErr = engine.New(context.Background()) })
	if fastEngErr != nil {
		b.Fatal(fastEngErr)
	}
	s, err := New(context.Background(), func(context.Context) (*engine.Engine, error) { return fastEng, nil })
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var reqs [][]byte
	for _, cmd := range benchdata.Mix {
		body, _ := json.Marshal(Request{Command: &cmd, Cwd: "/work/proj", Workspace: "/work/proj"})
		reqs = append(reqs, []byte(post("", string(body))))
	}
	br := bufio.NewReader(c)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := c.Write(reqs[i%len(reqs)]); err != nil {
			b.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("HTTP %d", resp.StatusCode)
		}
	}
	if s.fastServed.Load() == 0 {
		b.Fatal("not on the fast path")
	}
}
