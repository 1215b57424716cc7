package hookrelay

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"
)

// TestWireRoundTrip: a call and an answer come back as they were sent,
// bytes the JSON form could not carry (NUL, invalid UTF-8) included.
func TestWireRoundTrip(t *testing.T) {
	for _, c := range []Call{
		{},
		{Agent: "claude-code", Args: []string{"--audit", "off", ""}, Stdin: []byte(`{"tool_name":"Bash"}`), Cwd: "/p",
			Env: []string{"HOME=/h", "X=\x00\xff", "EMPTY="}, PPID: 1 << 30, Exe: "/bin/rivumi-hook"},
		{Agent: strings.Repeat("a", 300), Stdin: bytes.Repeat([]byte{0}, 70000), Env: make([]string, 200)},
	} {
		b := AppendCall(nil, c)
		got, err := DecodeCall(b)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if !sameCall(got, c) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, c)
		}
	}
	for _, r := range []Result{{}, {Code: 2, Stderr: []byte("rivumi: blocked\n")}, {Local: true}, {Code: 255, Stdout: []byte("\x00\xff")}} {
		got, err := DecodeResult(AppendResult(nil, r))
		if err != nil {
			t.Fatalf("%+v: %v", r, err)
		}
		if got.Code != r.Code || got.Local != r.Local || !bytes.Equal(got.Stdout, r.Stdout) || !bytes.Equal(got.Stderr, r.Stderr) {
			t.Errorf("round trip: got %+v, want %+v", got, r)
		}
	}
	// No process exits with a code outside a byte: it goes as 255, never
	// as 0 (which would read as an answer).
	for _, code := range []int{-1, 256, 1 << 40} {
		if got, err := DecodeResult(AppendResult(nil, Result{Code: code})); err != nil || got.Code != 255 {
			t.Errorf("code %d: %v %d; want 255", code, err, got.Code)
		}
	}
}

func sameCall(a, b Call) bool {
	norm := func(c Call) Call {
		if len(c.Args) == 0 {
			c.Args = nil
		}
		if len(c.Env) == 0 {
			c.Env = nil
		}
		if len(c.Stdin) == 0 {
			c.Stdin = nil
		}
		return c
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// TestWireRefuses: every malformed frame is an error, never a call or an
// answer with fields missing.
func TestWireRefuses(t *testing.T) {
	call := AppendCall(nil, Call{Agent: "codex", Cwd: "/p", Args: []string{"--x"}, Env: []string{"A=b"}, Stdin: []byte("{}")})
	uv := func(v uint64) string { return string(binary.AppendUvarint(nil, v)) }
	fr := func(magic, body string) string { return magic + uv(uint64(len(body))) + body }
	fields := string(call[len(CallMagic)+1:]) // the length fits one byte
	for name, b := range map[string]string{
		"empty":             "",
		"JSON":              `{"agent":"codex"}`,
		"other magic":       fr(resultMagic, fields),
		"trailing byte":     string(call) + "\x00",
		"trailing field":    fr(CallMagic, fields+"\x00"),
		"cut short":         string(call[:len(call)-1]),
		"length short":      fr(CallMagic, fields)[:len(CallMagic)] + uv(uint64(len(fields)-1)) + fields,
		"magic only":        CallMagic,
		"no fields":         fr(CallMagic, ""),
		"length past end":   fr(CallMagic, uv(1<<40)+"x"),
		"count past end":    fr(CallMagic, uv(0)+uv(0)+uv(0)+uv(1)+uv(1<<50)),
		"pid out of range":  fr(CallMagic, uv(0)+uv(0)+uv(0)+uv(1<<40)+uv(0)+uv(0)+uv(0)),
		"overlong varint":   fr(CallMagic, strings.Repeat("\xff", 11)),
		"truncated varint":  fr(CallMagic, "\x80"),
		"long zero":         fr(CallMagic, "\x80\x00"+uv(0)+uv(0)+uv(0)+uv(0)+uv(0)+uv(0)),
		"long frame length": CallMagic + string([]byte{byte(len(fields)) | 0x80, 0}) + fields,
		"answer for a call": string(AppendResult(nil, Result{})),
	} {
		if c, err := DecodeCall([]byte(b)); err == nil {
			t.Errorf("call %s: %+v, want an error", name, c)
		}
	}
	res := AppendResult(nil, Result{Code: 1, Stdout: []byte("o")})
	for name, b := range map[string]string{
		"empty":         "",
		"JSON":          `{"code":0}`,
		"trailing byte": string(res) + "x",
		"cut short":     string(res[:len(res)-1]),
		"no code":       fr(resultMagic, uv(0)),
		"unknown flag":  fr(resultMagic, uv(2)+uv(0)+uv(0)+uv(0)),
		"code 256":      fr(resultMagic, uv(0)+uv(256)+uv(0)+uv(0)),
		"a call":        string(call),
	} {
		if r, err := DecodeResult([]byte(b)); err == nil {
			t.Errorf("answer %s: %+v, want an error", name, r)
		}
	}
}

// FuzzDecodeCall: any input decodes to an error or to a call whose wire
// form is the input (so nothing is lost, invented or read twice), and
// never panics.
func FuzzDecodeCall(f *testing.F) {
	f.Add(AppendCall(nil, Call{Agent: "claude-code", Cwd: "/p", Args: []string{"--audit", "off"}, Env: []string{"HOME=/h"}, Stdin: []byte("{}"), PPID: 7, Exe: "/x"}))
	f.Add([]byte(CallMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeCall(b)
		if err != nil {
			return
		}
		if again := AppendCall(nil, c); !bytes.Equal(again, b) {
			t.Fatalf("decoded %+v from %q; it encodes as %q", c, b, again)
		}
	})
}

// FuzzDecodeResult: as FuzzDecodeCall, for answers.
func FuzzDecodeResult(f *testing.F) {
	f.Add(AppendResult(nil, Result{Code: 2, Stdout: []byte("o"), Stderr: []byte("e")}))
	f.Add(AppendResult(nil, Result{Local: true}))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeResult(b)
		if err != nil {
			return
		}
		if again := AppendResult(nil, r); !bytes.Equal(again, b) {
			t.Fatalf("decoded %+v from %q; it encodes as %q", r, b, again)
		}
	})
}
