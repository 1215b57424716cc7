package tools_test

import (
	"os"
	"testing"

	"github.com/rivumi/rivumi/harness"
)

// The sandbox helper and its contract probe run as this test binary.
func TestMain(m *testing.M) {
	harness.MaybeRunSandboxChild()
	os.Exit(m.Run())
}
