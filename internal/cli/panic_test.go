package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A panic in a command is exit 70, distinct from every verdict code (0, 2,
// 3) and from run's own codes, with the stack on stderr.
func TestPanicExitCode(t *testing.T) {
	register("test-panic", "panics (tests only)", func(context.Context, Stdio, []string) error { panic("boom") })
	t.Cleanup(func() { delete(commands, "test-panic") })
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"test-panic"}, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != ExitInternal || code == ExitAsk || code == ExitDeny || code == ExitOK {
		t.Fatalf("exit %d, want %d", code, ExitInternal)
	}
	if !strings.Contains(errb.String(), "internal error") || !strings.Contains(errb.String(), "boom") || !strings.Contains(errb.String(), "panic_test.go") {
		t.Fatalf("stderr %q: want the panic and its stack", errb.String())
	}
}
