package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/benchdata"
)

// awkward are strings encoding/json escapes: HTML characters, control
// characters, quotes, invalid UTF-8, U+2028 and U+2029, multi-byte runes.
var awkward = []string{
	"", "plain", `"quoted" \back\slash`, "<script>&amp;</script>", "tab\tnl\ncr\rbs\bff\f",
	"\x00\x01\x1f\x7f", "bad \xff utf8 \xc3", "line\u2028sep\u2029", "héllo wörld ✓ 🎉", "\ufffd",
	"rm -rf ~/ && echo 'x' > /dev/null 2>&1 | tee -a log",
}

// responses is a set that covers every field, set and unset, nil and empty.
func responses() []Response {
	var out []Response
	for _, s := range awkward {
		out = append(out, Response{
			Command: s, Argv: []string{s, "b"}, Error: s,
			Verdict: engine.Verdict{Decision: engine.Ask, Policy: s, Reasons: []engine.Reason{{
				Rule: s, Layer: engine.Layer(s), Decision: engine.Deny, Segment: -1, Title: s, Justification: s,
				Text: s, Suggest: s, Prefix: []string{s}, Grantable: true,
			}, {Rule: "r2", Segment: 3}}, Grants: []engine.Grant{{Prefix: []string{s}, Rules: []string{"a", s}}, {}}},
		})
	}
	out = append(out,
		Response{},
		Response{Argv: []string{}, Verdict: engine.Verdict{Reasons: []engine.Reason{}, Grants: []engine.Grant{}}},
		Response{Verdict: engine.Verdict{Decision: engine.Decision(7), Reasons: []engine.Reason{{Prefix: []string{}}}}},
		Response{Verdict: engine.Verdict{Decision: engine.Allow}, Argv: []string{""}},
	)
	return out
}

func wantJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// appendResponse writes what encoding/json writes, byte for byte: on
// every field and awkward string, and on the verdicts of the benchmark mix
// graded by the embedded policy.
func TestAppendResponseMatchesJSON(t *testing.T) {
	rs := responses()
	e, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range benchdata.Mix {
		rs = append(rs, Response{Command: c, Verdict: e.EvaluateText(context.Background(), c)})
		x := e.Explain(context.Background(), c)
		rs = append(rs, Response{Command: c, Verdict: x.Verdict})
	}
	for i, r := range rs {
		if got, want := string(appendResponse(nil, &r)), wantJSON(t, r); got != want {
			t.Errorf("response %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// writeResponses sends what writeJSON sends, one response or a batch.
func TestWriteResponses(t *testing.T) {
	rs := responses()
	for _, tt := range []struct {
		batch bool
		rs    []Response
	}{{false, rs[:1]}, {false, rs[len(rs)-1:]}, {true, rs}, {true, []Response{}}} {
		rec := httptest.NewRecorder()
		writeResponses(rec, http.StatusAccepted, tt.batch, tt.rs...)
		var want string
		if tt.batch {
			want = wantJSON(t, tt.rs) + "\n"
		} else {
			want = wantJSON(t, tt.rs[0]) + "\n"
		}
		if rec.Code != http.StatusAccepted || rec.Body.String() != want {
			t.Errorf("batch %v: got %d %q, want %q", tt.batch, rec.Code, rec.Body.String(), want)
		}
		if got := rec.Header().Get("Content-Length"); got != strconv.Itoa(len(want)) {
			t.Errorf("Content-Length %s, want %d", got, len(want))
		}
		if got := rec.Header().Get("Content-Type"); got != "application/json" {
			t.Errorf("Content-Type %q", got)
		}
	}
}

// A field added to what a response holds must be added to appendResponse:
// this lists the JSON names it writes, type by type.
func TestAppendResponseKnowsEveryField(t *testing.T) {
	for _, tt := range []struct {
		t     reflect.Type
		names []string
	}{
		{reflect.TypeFor[Response](), []string{"command", "argv", "Verdict", "error"}},
		{reflect.TypeFor[engine.Verdict](), []string{"decision", "reasons", "policy", "grants"}},
		{reflect.TypeFor[engine.Reason](), []string{"rule", "layer", "decision", "segment", "title", "justification", "text", "suggest", "prefix", "grantable"}},
		{reflect.TypeFor[engine.Grant](), []string{"prefix", "rules"}},
	} {
		var names []string
		for f := range tt.t.Fields() {
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			names = append(names, name)
		}
		if !slices.Equal(names, tt.names) {
			t.Errorf("%v has the JSON fields %q; appendResponse writes %q: update it (and this list)", tt.t, names, tt.names)
		}
	}
}

func FuzzAppendResponse(f *testing.F) {
	for _, s := range awkward {
		f.Add(s, s, -1, true)
	}
	f.Fuzz(func(t *testing.T, a, b string, seg int, grantable bool) {
		r := Response{Command: a, Argv: []string{b}, Error: b, Verdict: engine.Verdict{
			Decision: engine.Decision(seg % 5), Policy: a,
			Reasons: []engine.Reason{{Rule: a, Layer: engine.Layer(b), Segment: seg, Title: b, Text: a, Prefix: []string{a, b}, Grantable: grantable}},
			Grants:  []engine.Grant{{Prefix: []string{b}, Rules: []string{a}}},
		}}
		if got, want := string(appendResponse(nil, &r)), wantJSON(t, r); got != want {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
}

// BenchmarkEncodeResponse is one verdict of the mix encoded for the wire,
// by appendResponse and by encoding/json.
func BenchmarkEncodeResponse(b *testing.B) {
	e, err := engine.New(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	var rs []Response
	for _, c := range benchdata.Mix {
		rs = append(rs, Response{Command: c, Verdict: e.EvaluateText(context.Background(), c)})
	}
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for i := 0; b.Loop(); i++ {
			buf = appendResponse(buf[:0], &rs[i%len(rs)])
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		var buf strings.Builder
		for i := 0; b.Loop(); i++ {
			buf.Reset()
			if err := json.NewEncoder(&buf).Encode(rs[i%len(rs)]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
