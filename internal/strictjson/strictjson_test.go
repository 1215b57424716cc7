package strictjson_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/internal/strictjson"
)

type inner struct {
	Command string `json:"command"`
}

type base struct {
	Cwd string `json:"cwd"`
}

type request struct {
	base
	Command *string           `json:"command"`
	Argv    []string          `json:"argv"`
	Input   json.RawMessage   `json:"tool_input"`
	Nested  *inner            `json:"nested"`
	List    []inner           `json:"list"`
	Env     map[string]string `json:"env"`
	Any     any               `json:"any"`
	Skip    string            `json:"-"`
}

func TestDecode(t *testing.T) {
	for _, c := range []struct {
		in      string
		unknown bool
		err     string // "" means accepted
	}{
		{in: `{"command":"ls"}`},
		{in: `  {"command":"ls","cwd":"/w"}  `},
		{in: `{"command":"rm -rf /","Command":"ls"}`, err: `key "Command" at $: keys are case-sensitive: the field is "command"`},
		{in: `{"COMMAND":"ls"}`, unknown: true, err: `key "COMMAND" at $: keys are case-sensitive`},
		{in: `{"Cwd":"/"}`, err: `key "Cwd" at $: keys are case-sensitive: the field is "cwd"`},
		// encoding/json folds case as Unicode does: "ſ" is "s".
		{in: `{"liſt":[]}`, unknown: true, err: `key "liſt" at $: keys are case-sensitive: the field is "list"`},
		{in: `{"\u0063ommand":"ls","command":"rm"}`, err: `key "command" at $: duplicate key`},
		{in: `{"c\u006Fmmand":"ls"}`},
		{in: `{"list":[{"command":"a"},{"command":"b","Command":"c"}]}`, err: `key "Command" at $.list[1]: keys are case-sensitive`},
		{in: `{"env":{"a":"1","b":"2","c":"3","d":"4","e":"5","f":"6","g":"7","h":"8","i":"9","j":"10","k":"11","l":"12","m":"13","n":"14","o":"15","p":"16","q":"17","a":"18"}}`, err: `key "a" at $.env: duplicate key`},
		{in: `{"env":{"a":"1","b":"2","c":"3","d":"4","e":"5","f":"6","g":"7","h":"8","i":"9","j":"10","k":"11","l":"12","m":"13","n":"14","o":"15","p":"16","q":"17","r":"18","r":"19"}}`, err: `key "r" at $.env: duplicate key`},
		{in: `{"env":{"a":"1","b":"2","c":"3","d":"4","e":"5","f":"6","g":"7","h":"8","i":"9","j":"10","k":"11","l":"12","m":"13","n":"14","o":"15","p":"16","q":"17","r":"18"}}`},
		{in: `{"argv":["a","b"],"any":[1,true,null,-2.5e3,{"x":[]}],"nested":null}`},
		{in: `{"argv":["a\"b"],"command":"x\\"}`},
		{in: `{"command":"ls",}`, err: `malformed JSON`},
		{in: `{"command":"ls"]`, err: `malformed JSON`},
		{in: `{"command" "ls"}`, err: `malformed JSON`},
		{in: `{"argv":[,]}`, err: `malformed JSON`},
		{in: `{"command":tru}`, err: `at $`},
		{in: "{\"command\":\"a\x01\"}", err: `malformed JSON`},
		{in: `{"command":"rm -rf /","command":"ls"}`, err: `key "command" at $: duplicate key`},
		{in: `{"nested":{"command":"a","command":"b"}}`, err: `key "command" at $.nested: duplicate key`},
		{in: `{"nested":{"Command":"a"}}`, err: `key "Command" at $.nested: keys are case-sensitive`},
		{in: `{"list":[{"command":"a"},{"commanD":"b"}]}`, err: `key "commanD" at $.list[1]`},
		{in: `{"tool_input":{"command":"a","command":"b"}}`, err: `key "command" at $.tool_input: duplicate key`},
		{in: `{"tool_input":{"Command":"a","command":"b"}}`}, // raw JSON declares no keys: case variants are distinct keys
		{in: `{"env":{"A":"1","A":"2"}}`, err: `key "A" at $.env: duplicate key`},
		{in: `{"env":{"A":"1","a":"2"}}`},
		{in: `{"any":{"x":[{"y":1,"y":2}]}}`, err: `key "y" at $.any.x[0]: duplicate key`},
		{in: `{"extra":1}`, err: `key "extra" at $: unknown key`},
		{in: `{"extra":1}`, unknown: true},
		{in: `{"Skip":"x"}`, err: `unknown`},
		{in: `{"command":"ls"} {"command":"rm -rf /"}`, err: `at $: data after the JSON value`},
		{in: `{"command":"ls"}x`, err: `at $`},
		{in: `{"command":"ls"`, err: `at $: unexpected end of JSON input`},
		{in: `{"command":1}`, err: `at $.command: expected string, got number`},
		{in: `{"argv":["a",2]}`, err: `at $.argv`},
		{in: `{"list":"x"}`, err: `at $.list: expected array, got string`}, // no Go type names
		{in: `{"nested":[1]}`, err: `at $.nested: expected object, got array`},
		{in: `{"env":{"A":true}}`, err: `expected string, got bool`},
		{in: `rm -rf /`, err: `malformed JSON`},
		{in: ``, err: `unexpected end`},
	} {
		var r request
		var opts []strictjson.Option
		if c.unknown {
			opts = append(opts, strictjson.AllowUnknown())
		}
		err := strictjson.Decode([]byte(c.in), &r, opts...)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: refused: %v", c.in, err)
		case c.err != "" && err == nil:
			t.Errorf("%s: accepted, want an error with %q", c.in, c.err)
		case c.err != "" && !strings.Contains(err.Error(), c.err):
			t.Errorf("%s: error %q, want it to contain %q", c.in, err, c.err)
		}
		if c.err != "" && err != nil {
			if _, ok := err.(*strictjson.Error); !ok {
				t.Errorf("%s: error %T, want *strictjson.Error", c.in, err)
			}
		}
	}
}

// A refused input leaves the destination unchanged.
func TestDecodeRefusedLeavesValue(t *testing.T) {
	cmd := "keep"
	r := request{Command: &cmd}
	if err := strictjson.Decode([]byte(`{"command":"rm","Command":"ls"}`), &r); err == nil {
		t.Fatal("accepted")
	}
	if r.Command != &cmd || *r.Command != "keep" {
		t.Fatalf("destination changed: %+v", r)
	}
}

func TestDecodeNeedsPointer(t *testing.T) {
	var r request
	if err := strictjson.Decode([]byte(`{}`), r); err == nil {
		t.Fatal("a non-pointer was accepted")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(`{"command":"ls","Command":"x"}`)
	f.Add(`{"list":[{"command":"a"}],"env":{"A":"1"}}`)
	f.Fuzz(func(t *testing.T, in string) {
		var r request
		if err := strictjson.Decode([]byte(in), &r); err != nil {
			return
		}
		// Whatever is accepted decodes the same with encoding/json.
		var std request
		if err := json.Unmarshal([]byte(in), &std); err != nil {
			t.Fatalf("%q accepted, but encoding/json fails: %v", in, err)
		}
		a, _ := json.Marshal(r)
		b, _ := json.Marshal(std)
		if string(a) != string(b) {
			t.Fatalf("%q: strict %s, std %s", in, a, b)
		}
	})
}
