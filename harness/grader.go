package harness

import (
	"context"

	"github.com/rivumi/rivumi/verdict"
)

// request is the grading request for argv about to run here: an argv
// request in the run's directory and workspace, with the grants in force,
// its paths graded where they point on this machine's disk (the argv runs
// here, now). A [verdict.Grader] must return a verdict whose decision is
// Allow, Ask or Deny and honour the grants (cancelling only the ask rules
// each names on the segments it matches); an error, or a decision outside
// those three, makes the harness deny the command.
func request(argv []string, dir, workspace string, grants []verdict.Grant) verdict.Request {
	return verdict.Request{Argv: argv, Cwd: dir, Workspace: workspace, Grants: grants, FollowSymlinks: true}
}

// grade asks g for the verdict on argv run in dir.
func grade(ctx context.Context, g verdict.Grader, argv []string, dir, workspace string, grants []verdict.Grant) (verdict.Verdict, error) {
	return g.Grade(ctx, request(argv, dir, workspace, grants))
}
