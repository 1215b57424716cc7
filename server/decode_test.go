package server

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/internal/benchdata"
	"github.com/rivumi/rivumi/internal/strictjson"
)

// fastBodies are bodies fastRequest must take (fast true) or leave to
// strictjson (fast false); either way decodeRequest answers what
// strictjson.Decode answers.
var fastBodies = []struct {
	body string
	fast bool
}{
	{`{"command":"git status","cwd":"/work/p","workspace":"/work/p"}`, true},
	{` { "command" : "ls -la" , "cwd":"/w", "home":"/h", "shell":"sh", "follow_symlinks":true } `, true},
	{"{\n\t\"argv\": [\"git\", \"log\", \"-n\", \"1\"],\r\n\"follow_symlinks\": false}\n", true},
	{`{"command":"echo héllo ✓","workspace":"/wörk"}`, true},
	{`{"command":""}`, true},
	{`{"argv":["x"],"command":"y"}`, true},                         // both: Validate refuses it, as before
	{`{"command":"a\"b <\u003e \\ \ud83d\ude00 \ud800 \/"}`, true}, // escapes, a lone surrogate
	{`{"command":"a\u0041","argv":["\/x\t"]}`, true},
	{`{"command":"a\x"}`, false},
	{`{"command":"a\u00zz"}`, false},
	{`{"command":"a\"}`, false},
	{"{\"command\":\"a\tb\"}", false},                      // a raw control character: invalid JSON
	{"{\"command\":\"\xff\", \"cwd\":\"\xc3\xa9\"}", true}, // invalid UTF-8: U+FFFD, as strictjson gives
	{`{"command":null}`, false},
	{`{"command":1}`, false},
	{`{"argv":[]}`, false},
	{`{"argv":["a",]}`, false},
	{`{"argv":["a" "b"]}`, false},
	{`{"argv":null}`, false},
	{`{"Command":"ls"}`, false}, // a case variant
	{`{"command":"ls","command":"rm"}`, false},
	{`{"command":"ls","extra":1}`, false},
	{`{"command":"ls","grants":[{"prefix":["ls"],"rules":["x"]}]}`, false},
	{`{"command":"ls"}x`, false},
	{`{"command":"ls"}{}`, false},
	{`{"command":"ls",}`, false},
	{`{"command":"ls"`, false},
	{`{"follow_symlinks":tru}`, false},
	{`{"follow_symlinks":truex}`, false},
	{`{}`, false},
	{`[]`, false},
	{``, false},
	{"\ufeff{\"command\":\"ls\"}", false},
	{`{"comm\u0061nd":"ls"}`, false},
}

func TestFastRequest(t *testing.T) {
	for _, c := range fastBodies {
		var fast Request
		took := fastRequest([]byte(c.body), &fast)
		if took != c.fast {
			t.Errorf("fastRequest(%q) took it: %v, want %v", c.body, took, c.fast)
		}
		checkSameAsStrict(t, []byte(c.body))
	}
}

// checkSameAsStrict fails when decodeRequest and fastRequest answer
// other than strictjson.Decode does for b.
func checkSameAsStrict(t *testing.T, b []byte) {
	t.Helper()
	var want Request
	werr := strictjson.Decode(b, &want)
	var fast Request
	if fastRequest(b, &fast) {
		if werr != nil {
			t.Fatalf("fastRequest took %q, which strictjson refuses: %v", b, werr)
		}
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("fastRequest(%q) = %+v, strictjson gives %+v", b, fast, want)
		}
	} else if !reflect.DeepEqual(fast, Request{}) {
		t.Fatalf("fastRequest(%q) refused but changed the request: %+v", b, fast)
	}
	var got Request
	err := decodeRequest(b, &got)
	if (err == nil) != (werr == nil) || (err == nil && !reflect.DeepEqual(got, want)) {
		t.Fatalf("decodeRequest(%q) = %+v, %v; strictjson gives %+v, %v", b, got, err, want, werr)
	}
	if werr != nil && !strings.Contains(err.Error(), werr.Error()) {
		t.Fatalf("decodeRequest(%q): error %q does not carry strictjson's %q", b, err, werr)
	}
}

// A short command in a padded body does not keep the body alive: its
// string is its own copy.
func TestFastRequestPaddedBody(t *testing.T) {
	body := []byte(`{"command":"ls"` + strings.Repeat(" ", 4096) + `}`)
	var r Request
	if !fastRequest(body, &r) || *r.Command != "ls" {
		t.Fatalf("not taken: %+v", r)
	}
	if n := testing.AllocsPerRun(50, func() { fastRequest(body, &r) }); n > 2 {
		t.Errorf("%v allocations", n)
	}
}

// The common body costs two allocations: the body's copy and the
// command's pointer.
func TestFastRequestAllocs(t *testing.T) {
	body := []byte(`{"command":"git status --short","cwd":"/work/proj1","workspace":"/work/proj1"}`)
	var r Request
	if n := testing.AllocsPerRun(100, func() { fastRequest(body, &r) }); n > 2 {
		t.Errorf("%v allocations, want at most 2", n)
	}
}

// FuzzFastRequest: whatever fastRequest takes, strictjson takes and
// decodes the same way.
func FuzzFastRequest(f *testing.F) {
	for _, c := range fastBodies {
		f.Add([]byte(c.body))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkSameAsStrict(t, b) })
}

// Every body of the benchmark mix, as Go's encoder writes it (<, > and &
// escaped), takes the fast path.
func TestFastRequestMix(t *testing.T) {
	for _, c := range benchdata.Mix {
		b, err := json.Marshal(Request{Command: &c, Cwd: "/work/proj", Workspace: "/work/proj"})
		if err != nil {
			t.Fatal(err)
		}
		var r Request
		if !fastRequest(b, &r) {
			t.Errorf("not taken: %s", b)
		}
		checkSameAsStrict(t, b)
	}
}
