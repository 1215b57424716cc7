package strictjson

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type scanDest struct {
	Command *string           `json:"command"`
	Argv    []string          `json:"argv"`
	Raw     json.RawMessage   `json:"raw"`
	Env     map[string]string `json:"env"`
	List    []scanDest        `json:"list"`
	Any     any               `json:"any"`
}

// checkBoth runs the scanner and the token checker on in.
func checkBoth(in []byte, cfg config) (scan error, bad bool, tokens error) {
	t := reflect.TypeFor[scanDest]()
	s := scanner{b: in, cfg: cfg}
	if err := s.value(t, reflect.Value{}); err != nil {
		scan = err
	}
	s.ws()
	return scan, s.bad || (scan == nil && s.i != len(in)), checkTokens(in, t, cfg)
}

// On valid JSON the scanner decides alone, and as the token checker does.
func TestScannerMatchesTokens(t *testing.T) {
	for _, in := range []string{
		`{"command":"ls"}`, ` { "argv" : [ "a" , "b\"" ] , "env" : { "A" : "1" , "a" : "2" } } `,
		`{"command":"ls","command":"x"}`, `{"Command":"ls"}`, `{"x":1}`, `{"raw":{"A":1,"a":2}}`,
		`{"raw":{"A":1,"A":2}}`, `{"list":[{"list":[{"argv":[]}]},{"Argv":[]}]}`, `{"any":[{"k":1,"k":2}]}`,
		`{"\u0063ommand":"x","command":"y"}`, `{"comm\u00e1nd":"x"}`, `{"env":{"é":"1","é":"2"}}`,
		`[]`, `"x"`, `null`, `{"any":[1,-2.5e+3,true,false,null,"\\"]}`, `{}`, `{"list":[]}`,
	} {
		for _, cfg := range []config{{}, {allowUnknown: true}} {
			scan, bad, tokens := checkBoth([]byte(in), cfg)
			if bad {
				t.Errorf("%s: the scanner gave up on valid JSON", in)
				continue
			}
			if (scan == nil) != (tokens == nil) || (scan != nil && scan.Error() != tokens.Error()) {
				t.Errorf("%s (%+v): scanner %v, tokens %v", in, cfg, scan, tokens)
			}
		}
	}
}

// An ordinary request is checked without allocating.
func TestScannerAllocs(t *testing.T) {
	in := []byte(`{"command":"git status","argv":null,"env":{"A":"1"},"list":[{"command":"x"}]}`)
	n := testing.AllocsPerRun(100, func() {
		s := scanner{b: in, path: make([]pathElem, 0, 8)}
		if err := s.value(reflect.TypeFor[scanDest](), reflect.Value{}); err != nil || s.bad {
			t.Fatal(err, s.bad)
		}
	})
	if n > 1 {
		t.Errorf("%v allocations per check, want at most 1", n)
	}
}

func FuzzScanner(f *testing.F) {
	f.Add(`{"command":"ls","Command":"x"}`)
	f.Add(`{"list":[{"command":"a"}],"env":{"A":"1","A":"2"}}`)
	f.Add(`{"\u0063ommand":"x","command":"y"}`)
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		scan, bad, tokens := checkBoth([]byte(in), config{})
		if bad {
			t.Fatalf("%q: the scanner gave up on valid JSON", in)
		}
		if (scan == nil) != (tokens == nil) {
			t.Fatalf("%q: scanner %v, tokens %v", in, scan, tokens)
		}
	})
}

var benchIn = []byte(`{"command":"git log --oneline -20 | head -5","cwd":"/work/proj12345","workspace":"/work/proj12345"}`)

type benchReq struct {
	Command   *string  `json:"command,omitempty"`
	Argv      []string `json:"argv,omitempty"`
	Cwd       string   `json:"cwd,omitempty"`
	Workspace string   `json:"workspace,omitempty"`
}

func BenchmarkDecode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var r benchReq
		if err := Decode(benchIn, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckTokens(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if err := checkTokens(benchIn, reflect.TypeFor[benchReq](), config{}); err != nil {
			b.Fatal(err)
		}
	}
}

type fastGrant struct {
	Prefix []string `json:"prefix"`
	Rules  []string `json:"rules,omitempty"`
}

type fastDest struct {
	Command *string     `json:"command,omitempty"`
	Argv    []string    `json:"argv"`
	Cwd     string      `json:"cwd"`
	Follow  bool        `json:"follow"`
	Grants  []fastGrant `json:"grants"`
	Inner   *fastGrant  `json:"inner"`
	Ptrs    []*string   `json:"ptrs"`
	Named   fastName    `json:"named"`
}

type fastName string

func TestFastTypes(t *testing.T) {
	for _, c := range []struct {
		v    any
		want bool
	}{
		{fastDest{}, true}, {benchReq{}, true}, {scanDest{}, false}, {struct{ N int }{}, false},
		{struct {
			B []byte `json:"b"`
		}{}, false},
		{struct {
			S string `json:"s,string"`
		}{}, false},
		{struct{ fastGrant }{}, false}, {struct{ R json.RawMessage }{}, false},
	} {
		if got := fastType(reflect.TypeOf(c.v)); got != c.want {
			t.Errorf("%T: fast %v, want %v", c.v, got, c.want)
		}
	}
}

// What the one pass decodes is what encoding/json decodes.
func TestFastMatchesStd(t *testing.T) {
	for _, in := range []string{
		`{"command":"ls","argv":["a","b\u00e9\n","\ud800x","é"],"cwd":"/w","follow":true}`,
		`{"command":null,"argv":null,"grants":[{"prefix":["git"],"rules":null},{"prefix":[]}],"inner":{"prefix":["x"]}}`,
		`{"ptrs":["a",null],"named":"n","inner":null,"follow":false}`, `{}`, `{"argv":[]}`, "{\"cwd\":\"\xff\xfe\"}",
		`{"argv":[null,"x"]}`,
	} {
		var got, want fastDest
		if err := Decode([]byte(in), &got); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", in, got, want)
		}
	}
	// Type mismatches leave the one pass for encoding/json, which names them.
	var d fastDest
	if err := Decode([]byte(`{"follow":"yes"}`), &d); err == nil || !strings.Contains(err.Error(), "$.follow") {
		t.Errorf("mismatch: %v", err)
	}
}

func FuzzFastMatchesStd(f *testing.F) {
	f.Add(`{"command":"ls","argv":["a"],"grants":[{"prefix":["git"]}],"ptrs":[null]}`)
	f.Add(`{"cwd":"\u00e9\ud800","follow":true,"inner":{"rules":[]}}`)
	f.Fuzz(func(t *testing.T, in string) {
		var got fastDest
		if err := Decode([]byte(in), &got); err != nil {
			return
		}
		var want fastDest
		dec := json.NewDecoder(strings.NewReader(in))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("%q accepted, encoding/json: %v", in, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %#v\nwant %#v", in, got, want)
		}
	})
}
