package agentrun_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/tools"
)

// runChecks runs every configured check through the workspace tools.
func runChecks(ctx context.Context, w *workspace.Workspace) error {
	ts, err := tools.New(tools.Config{Workspace: w, Harness: harness.Config{Sandbox: harness.SandboxAuto}})
	if err != nil {
		return err
	}
	for _, c := range w.Request().Checks {
		if _, err := ts.Call(ctx, tools.ToolRunCheck, json.RawMessage(fmt.Sprintf(`{"name":%q}`, c.Name))); err != nil {
			return err
		}
	}
	return nil
}
