package cli

import (
	"context"
	"os"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/harness"
)

// The engine behind `run` and `grant add`: the embedded packs, grading each
// argv with the harness's cwd, workspace and grants.
func init() {
	newGrader = func(ctx context.Context, pf *policyFlags) (harness.Grader, error) {
		e, err := pf.newEngine(ctx)
		if err != nil {
			return nil, err
		}
		return harness.GraderFunc(func(ctx context.Context, argv []string, o harness.GradeOptions) (engine.Verdict, error) {
			// The argv runs here, now: its paths are graded where they point.
			opts := []engine.EvalOption{engine.Grants(o.Grants), engine.FollowSymlinks(true)}
			if o.Cwd != "" {
				opts = append(opts, engine.Cwd(o.Cwd))
			}
			if o.Workspace != "" {
				opts = append(opts, engine.Workspace(o.Workspace))
			}
			if home, err := os.UserHomeDir(); err == nil && home != "/" {
				opts = append(opts, engine.Home(home))
			}
			return e.EvaluateArgv(ctx, argv, opts...), nil
		}), nil
	}
}
