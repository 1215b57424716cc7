package cli

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestDeployDoc runs docs/deploy.md's rollout walk-through (shadow, replay,
// enforce) as it is written.
func TestDeployDoc(t *testing.T) {
	testscript.Run(t, docScriptParams(t, "../../docs/deploy.md", nil))
}
