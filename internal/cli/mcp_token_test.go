package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestMCPToken: -token-file keeps the HTTP server's bearer token (made,
// mode 0600, when missing; an empty file is an error); without it, -http
// gets a fresh token and -unix none.
func TestMCPToken(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tok")
	tok, made, err := mcpToken(file, true)
	if err != nil || !made || len(tok) != 64 {
		t.Fatalf("new file: %q %v %v", tok, made, err)
	}
	if fi, err := os.Stat(file); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Errorf("token file: %v %v; want mode 0600", fi.Mode(), err)
	}
	again, made, err := mcpToken(file, true)
	if err != nil || made || again != tok {
		t.Errorf("existing file: %q %v %v; want %q, not made", again, made, err, tok)
	}
	if err := os.WriteFile(file, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := mcpToken(file, true); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty file: %v", err)
	}
	fresh, made, err := mcpToken("", true)
	if err != nil || !made || len(fresh) != 64 {
		t.Errorf("-http without a file: %q %v %v", fresh, made, err)
	}
	if other, _, _ := mcpToken("", true); other == fresh {
		t.Error("two fresh tokens are equal")
	}
	if tok, made, err := mcpToken("", false); err != nil || made || tok != "" {
		t.Errorf("-unix without a file: %q %v %v; want none", tok, made, err)
	}
}
