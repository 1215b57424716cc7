package harness

import (
	"context"

	"github.com/rivumi/rivumi/verdict"
)

// Grader grades an argv before it runs. The engine satisfies it through a
// small adapter (see [GraderFunc]).
//
// GradeArgv must return a verdict whose decision is Allow, Ask or Deny; it
// must honour opts.Grants (cancelling only the ask rules each grant names on
// segments it matches). An error, or a decision outside those three, makes
// the harness deny the command.
type Grader interface {
	GradeArgv(ctx context.Context, argv []string, opts GradeOptions) (verdict.Verdict, error)
}

// GradeOptions is the context of one grading.
type GradeOptions struct {
	// Cwd is the absolute directory the command will run in.
	Cwd string
	// Workspace is the absolute project root the command may write to.
	Workspace string
	// Grants are the session's and the project's grants.
	Grants []verdict.Grant
}

// GraderFunc adapts a function to [Grader].
type GraderFunc func(ctx context.Context, argv []string, opts GradeOptions) (verdict.Verdict, error)

// GradeArgv calls f.
func (f GraderFunc) GradeArgv(ctx context.Context, argv []string, opts GradeOptions) (verdict.Verdict, error) {
	return f(ctx, argv, opts)
}
