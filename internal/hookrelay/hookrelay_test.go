package hookrelay

import (
	"bufio"
	"strings"
	"testing"
)

// TestReadResult: only a complete answer frame with an exit code (or
// "local") is a result; everything else (an HTTP answer from an older
// server, a cut frame, a frame claiming more than MaxBody) is an error,
// which the client takes as no answer.
func TestReadResult(t *testing.T) {
	frame := func(r Result) string { return string(AppendResult(nil, r)) }
	for _, tc := range []struct {
		name, raw string
		want      *Result
	}{
		{"answer", frame(Result{Code: 2, Stdout: []byte("out")}), &Result{Code: 2, Stdout: []byte("out")}},
		{"code 0", frame(Result{}), &Result{}},
		{"local", frame(Result{Local: true}), &Result{Local: true}},
		{"answer, then more", frame(Result{Code: 1}) + "junk", &Result{Code: 1}},
		{"no code", resultMagic + "\x01\x00", nil},
		{"HTTP (an older server)", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{\"code\":0}", nil},
		{"a call", string(AppendCall(nil, Call{})), nil},
		{"cut", frame(Result{Stdout: []byte("out")})[:9], nil},
		{"length over MaxBody", resultMagic + "\xff\xff\xff\xff\x7f", nil},
		{"long length", resultMagic + "\x84\x00" + "\x00\x00\x00\x00", nil},
		{"empty", "", nil},
	} {
		r, err := ReadResult(bufio.NewReader(strings.NewReader(tc.raw)))
		switch {
		case tc.want == nil && err == nil:
			t.Errorf("%s: %+v, want an error", tc.name, r)
		case tc.want != nil && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != nil && (r.Code != tc.want.Code || string(r.Stdout) != string(tc.want.Stdout) || r.Local != tc.want.Local):
			t.Errorf("%s: %+v, want %+v", tc.name, r, *tc.want)
		}
	}
}

// TestReadCall: a call frame read off a stream is the call written; a
// stream that is not one is refused.
func TestReadCall(t *testing.T) {
	c := Call{Agent: "gemini", Cwd: "/p", Args: []string{"--shadow"}, Env: []string{"A=1"}, Stdin: []byte("{}"), PPID: 9, Exe: "/x"}
	got, err := ReadCall(bufio.NewReader(strings.NewReader(string(AppendCall(nil, c)))))
	if err != nil || !sameCall(got, c) {
		t.Errorf("ReadCall: %+v %v; want %+v", got, err, c)
	}
	for _, raw := range []string{"", "POST /v1/verdict HTTP/1.1\r\n\r\n", CallMagic, string(AppendCall(nil, c))[:20]} {
		if got, err := ReadCall(bufio.NewReader(strings.NewReader(raw))); err == nil {
			t.Errorf("ReadCall(%q) = %+v, want an error", raw, got)
		}
	}
}
