package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/benchdata"
	"github.com/rivumi/rivumi/server"
)

// BenchmarkServeVerdictUnique is serve's HTTP handler as `rivumi serve`
// builds it (the configuration found from each request's cwd,
// server.WithConfigs) answering POST /v1/verdict over the benchmark mix,
// every request with its own cwd and workspace as `benchtool load
// -unique-cwd` sends them: no verdict and no segment is cached. ns/op and
// allocs/op are per verdict; the network (a read and a write on a TCP
// connection, net/http's connection loop) is what scripts/bench adds.
func BenchmarkServeVerdictUnique(b *testing.B) {
	dir := b.TempDir()
	b.Setenv("HOME", dir)
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	foundConfigs.reset()
	var pf policyFlags
	ctx := context.Background()
	load := func(ctx context.Context) (*engine.Engine, error) {
		_, load, err := pf.configFor(ctx, "")
		if err != nil {
			return nil, err
		}
		return load(ctx)
	}
	srv, err := server.New(ctx, load, server.WithConfigs(pf.configFor, 0))
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	cmds := make([][]byte, len(benchdata.Mix))
	for i, c := range benchdata.Mix {
		cmds[i], _ = json.Marshal(c)
	}
	var body []byte
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		dir := strconv.AppendInt([]byte("/work/proj"), int64(i), 10)
		body = append(body[:0], `{"command":`...)
		body = append(body, cmds[i%len(cmds)]...)
		body = append(append(append(body, `,"cwd":"`...), dir...), `","workspace":"`...)
		body = append(append(body, dir...), `"}`...)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/v1/verdict", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		w.code = 0
		h.ServeHTTP(w, req)
		if w.code != http.StatusOK {
			b.Fatalf("HTTP %d for %s", w.code, body)
		}
	}
}

// discardWriter is an http.ResponseWriter that keeps only the status.
type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header { return w.h }

func (w *discardWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *discardWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return len(b), nil
}
