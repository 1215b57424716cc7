package hookrelay

import (
	"bufio"
	"strconv"
	"strings"
	"testing"
)

// TestReadResponse: only a complete 200 answer with an exit code (or
// "local") is a result; everything else is an error, which the client
// takes as no answer.
func TestReadResponse(t *testing.T) {
	ok := func(body string) string {
		return "HTTP/1.1 200 OK\r\nContent-Type: " + ContentType + "\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	frame := func(r Result) string { return string(AppendResult(nil, r)) }
	for _, tc := range []struct {
		name, raw string
		want      *Result
	}{
		{"answer", ok(frame(Result{Code: 2, Stdout: []byte("out")})), &Result{Code: 2, Stdout: []byte("out"), Stderr: []byte{}}},
		{"code 0", ok(frame(Result{})), &Result{}},
		{"local", ok(frame(Result{Local: true})), &Result{Local: true}},
		{"no code", ok(resultMagic), nil},
		{"JSON (an older server)", ok(`{"code":0}`), nil},
		{"trailing byte", ok(frame(Result{}) + "x"), nil},
		{"404", "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found", nil},
		{"503", "HTTP/1.1 503 Service Unavailable\r\nContent-Length: " + strconv.Itoa(len(frame(Result{}))) + "\r\n\r\n" + frame(Result{}), nil},
		{"415", "HTTP/1.1 415 Unsupported Media Type\r\nContent-Length: " + strconv.Itoa(len(frame(Result{}))) + "\r\n\r\n" + frame(Result{}), nil},
		{"no length", "HTTP/1.1 200 OK\r\n\r\n" + frame(Result{}), nil},
		{"short body", "HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n" + frame(Result{}), nil},
		{"huge length", "HTTP/1.1 200 OK\r\nContent-Length: 999999999999\r\n\r\n", nil},
		{"not HTTP", "SSH-2.0-OpenSSH\r\n", nil},
		{"empty", "", nil},
	} {
		var r Result
		err := readResponse(bufio.NewReader(strings.NewReader(tc.raw)), &r)
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
