//go:build unix

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hook doctor's end-to-end probe runs the installed entry but starts no
// server of its own: after it, the socket a user's `rivumi serve --socket`
// would take is still free.
func TestDoctorProbeStartsNoServer(t *testing.T) {
	dir := t.TempDir()
	home, run, proj := filepath.Join(dir, "home"), filepath.Join(dir, "run"), filepath.Join(dir, "proj")
	for _, d := range []string{home, run, filepath.Join(proj, ".git")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_RUNTIME_DIR", run)
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv(noAutostartEnv, "") // as a user's shell has it
	t.Setenv(execEnv, "1")       // the installed entry (this binary) runs the CLI
	t.Setenv(serveIdleEnv, "5s") // a server started by mistake goes away
	var out bytes.Buffer
	io := Stdio{In: strings.NewReader(""), Out: &out, Err: &out}
	if code := Main(context.Background(), []string{"hook", "install", "claude-code", "-C", proj}, io); code != 0 {
		t.Fatalf("install: exit %d\n%s", code, out.String())
	}
	out.Reset()
	Main(context.Background(), []string{"hook", "doctor", "claude-code", "-C", proj}, io)
	if !strings.Contains(out.String(), "is denied end to end") {
		t.Fatalf("the probe did not run end to end:\n%s", out.String())
	}
	time.Sleep(500 * time.Millisecond) // a server started in the background would be listening by now
	entries, _ := os.ReadDir(run)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sock") {
			t.Errorf("hook doctor left a server listening on %s", filepath.Join(run, e.Name()))
		}
	}
}
