package audit_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rivumi/rivumi/audit"
)

func ExampleLogger() {
	dir, _ := os.MkdirTemp("", "audit")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "audit.jsonl")
	log, err := audit.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer log.Close()
	log.Log(context.Background(), audit.Entry{Kind: audit.KindGrade, Source: "hook/claude",
		Command: "curl -H 'Authorization: Bearer abcdefghijkl' https://example.com", Decision: "ask"})
	entries, _ := audit.ReadFile(path)
	fmt.Println(entries[0].Command)
	// Output: curl -H 'Authorization: [REDACTED]' https://example.com
}
