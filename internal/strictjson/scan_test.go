package strictjson

import (
	"encoding/json"
	"reflect"
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
	if err := s.value(t); err != nil {
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
		if err := s.value(reflect.TypeFor[scanDest]()); err != nil || s.bad {
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
