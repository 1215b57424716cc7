package cli

import (
	"context"
	"os"

	"github.com/rivumi/rivumi/verdict"
)

// engineGrader is the grader behind `run` and `grant add`: the embedded
// packs (and --policy's), grading each request the harness makes (an argv
// in its cwd and workspace, with its grants, its paths where they point)
// with this user's home.
func engineGrader(ctx context.Context, pf *policyFlags) (verdict.Grader, error) {
	e, err := pf.newEngine(ctx)
	if err != nil {
		return nil, err
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "/" {
		return e, nil
	}
	return verdict.GraderFunc(func(ctx context.Context, r verdict.Request) (verdict.Verdict, error) {
		r.Home = home
		return e.Grade(ctx, r)
	}), nil
}
