package harness

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func TestCaptureHeadTail(t *testing.T) {
	tests := []struct{ head, tail, n int }{
		{0, 0, 100},
		{10, 10, 0},
		{10, 10, 5},
		{10, 10, 15},
		{10, 10, 20},
		{10, 10, 21},
		{10, 10, 1000},
		{0, 7, 1000},
		{7, 0, 1000},
		{64, 64, 1 << 16},
	}
	for _, tt := range tests {
		for _, chunk := range []int{1, 3, 10, 64, 1 << 20} {
			data := make([]byte, tt.n)
			for i := range data {
				data[i] = byte(rand.IntN(256))
			}
			c := newCapture(tt.head, tt.tail, nil)
			for rest := data; len(rest) > 0; {
				k := min(len(rest), 1+rand.IntN(chunk))
				c.Write(rest[:k])
				rest = rest[k:]
			}
			o := c.output()
			wantHead := data[:min(tt.head, tt.n)]
			wantTail := data[len(wantHead):]
			if len(wantTail) > tt.tail {
				wantTail = wantTail[len(wantTail)-tt.tail:]
			}
			if !bytes.Equal(o.Head, wantHead) || !bytes.Equal(o.Tail, wantTail) {
				t.Fatalf("head %d tail %d n %d chunk %d: head/tail wrong", tt.head, tt.tail, tt.n, chunk)
			}
			if o.Total != int64(tt.n) || o.Dropped != int64(tt.n-len(wantHead)-len(wantTail)) {
				t.Fatalf("head %d tail %d n %d: total %d dropped %d", tt.head, tt.tail, tt.n, o.Total, o.Dropped)
			}
		}
	}
}

func TestCaptureTee(t *testing.T) {
	var tee bytes.Buffer
	c := newCapture(2, 2, &tee)
	c.Write([]byte("hello "))
	c.Write([]byte("world"))
	if tee.String() != "hello world" {
		t.Errorf("tee got %q", tee.String())
	}
	if got := c.output().String(); got != "he\n[… 7 bytes dropped …]\nld" {
		t.Errorf("String() = %q", got)
	}
}
