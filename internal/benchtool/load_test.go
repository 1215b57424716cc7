package main

import (
	"bufio"
	"strings"
	"testing"
)

func TestReadResponse(t *testing.T) {
	tests := []struct {
		name, in   string
		code       int
		keep, fail bool
		rest       string // what is left for the next response
	}{
		{"length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloNEXT", 200, true, false, "NEXT"},
		{"chunked", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n3;x=y\r\nabc\r\n0\r\nTrailer: v\r\n\r\nNEXT", 200, true, false, "NEXT"},
		{"close", "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 2\r\nConnection: close\r\n\r\nnoNEXT", 503, false, false, "NEXT"},
		{"to the end", "HTTP/1.0 200 OK\r\n\r\nbody", 200, false, false, ""},
		{"bad status", "SSH-2.0-x\r\n", 0, false, true, ""},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 200, false, true, ""},
		{"bad chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 200, false, true, ""},
		{"short body", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", 200, false, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			br := bufio.NewReader(strings.NewReader(tt.in))
			code, keep, err := readResponse(br)
			if (err != nil) != tt.fail || code != tt.code || keep != tt.keep {
				t.Fatalf("readResponse = %d, %v, %v; want %d, keep %v, fail %v", code, keep, err, tt.code, tt.keep, tt.fail)
			}
			if tt.fail {
				return
			}
			rest, _ := br.ReadString(0)
			if rest != tt.rest {
				t.Errorf("left %q, want %q", rest, tt.rest)
			}
		})
	}
}

func TestAppendBody(t *testing.T) {
	b, err := newBodies([]string{`ls "a"`}, "opa", true)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b.appendBody(nil, 7))
	want := `{"input":{"command":"ls \"a\"","cwd":"/work/proj7","workspace":"/work/proj7"}}`
	if got != want {
		t.Errorf("appendBody = %s, want %s", got, want)
	}
	if _, err := newBodies([]string{"x"}, "yaml", false); err == nil {
		t.Error("newBodies accepted -body yaml")
	}
}
