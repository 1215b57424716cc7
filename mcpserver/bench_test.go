package mcpserver_test

import (
	"context"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallOverPipes measures one tool call through the SDK client
// and server over a pair of OS pipes: the stdio transport's framing
// (newline-delimited JSON-RPC), without process start-up.
func BenchmarkCallOverPipes(b *testing.B) {
	for _, bc := range []struct {
		name, tool string
		args       map[string]any
	}{
		{"read_file", "read_file", map[string]any{"path": "greeting.txt"}},
		{"list_files", "list_files", map[string]any{}},
		{"shell_echo", "shell", map[string]any{"command": "echo hi"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := newFixture(b)
			cr, sw, err := os.Pipe()
			if err != nil {
				b.Fatal(err)
			}
			sr, cw, err := os.Pipe()
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- f.srv.Run(ctx, &mcp.IOTransport{Reader: sr, Writer: sw}) }()
			c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				cs.Close()
				cancel()
				<-done
			}()
			params := &mcp.CallToolParams{Name: bc.tool, Arguments: bc.args}
			b.ResetTimer()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}
