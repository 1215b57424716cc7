package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/benchdata"
	"github.com/rivumi/rivumi/server"
)

var (
	benchOnce            sync.Once
	benchWarm, benchCold *server.Server
	benchErr             error
)

// benchServers returns a server with the default engine (segment cache on,
// as `rivumi serve` runs) and one with the cache off.
func benchServers(b *testing.B) (warm, cold *server.Server) {
	b.Helper()
	benchOnce.Do(func() {
		ctx := context.Background()
		for _, p := range []struct {
			s    **server.Server
			opts []engine.Option
		}{{&benchWarm, nil}, {&benchCold, []engine.Option{engine.CacheSize(0)}}} {
			e, err := engine.New(ctx, p.opts...)
			if err != nil {
				benchErr = err
				return
			}
			if *p.s, err = server.New(ctx, staticLoad(e)); err != nil {
				benchErr = err
				return
			}
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchWarm, benchCold
}

func mixBodies() [][]byte {
	out := make([][]byte, len(benchdata.Mix))
	for i, c := range benchdata.Mix {
		out[i], _ = json.Marshal(map[string]string{"command": c, "cwd": "/work/proj", "workspace": "/work/proj"})
	}
	return out
}

// serveHTTP posts body to path on the server's handler, without a network.
func serveHTTP(b *testing.B, h http.Handler, path string, body []byte) {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("%s: HTTP %d: %s", path, rec.Code, rec.Body.String())
	}
}

// BenchmarkHandlerVerdict is one POST /v1/verdict through the server's
// handler (JSON decode, grade, metrics, JSON encode), cycling over the mix;
// ns/op is per verdict. The loopback network is what scripts/bench adds.
func BenchmarkHandlerVerdict(b *testing.B) {
	warm, cold := benchServers(b)
	bodies := mixBodies()
	for _, c := range []struct {
		name string
		s    *server.Server
	}{{"cache", warm}, {"nocache", cold}} {
		b.Run(c.name, func(b *testing.B) {
			h := c.s.Handler()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				serveHTTP(b, h, "/v1/verdict", bodies[i%len(bodies)])
			}
		})
	}
}

// BenchmarkHandlerBatch is batch evaluation: the whole mix in one
// POST /v1/verdicts, cache off; ns/cmd is per verdict.
func BenchmarkHandlerBatch(b *testing.B) {
	_, cold := benchServers(b)
	var reqs []json.RawMessage
	for _, body := range mixBodies() {
		reqs = append(reqs, body)
	}
	body, _ := json.Marshal(reqs)
	h := cold.Handler()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		serveHTTP(b, h, "/v1/verdicts", body)
		n++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*len(reqs)), "ns/cmd")
}
