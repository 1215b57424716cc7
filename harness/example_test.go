//go:build unix

package harness_test

import (
	"context"
	"fmt"
	"os"

	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/verdict"
)

func Example() {
	// The engine satisfies Grader through a small adapter; this one allows
	// echo and asks for everything else.
	grader := verdict.GraderFunc(func(ctx context.Context, r verdict.Request) (verdict.Verdict, error) {
		argv := r.Argv
		if argv[0] == "echo" {
			return verdict.Verdict{Decision: verdict.Allow}, nil
		}
		return verdict.Verdict{Decision: verdict.Ask, Reasons: []verdict.Reason{{Rule: "fallback", Decision: verdict.Ask}}}, nil
	})
	ws, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(ws)
	h, err := harness.New(harness.Config{Grader: grader, Workspace: ws}) // headless: ask is deny
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := h.Run(context.Background(), harness.Request{Argv: []string{"echo", "hello"}})
	fmt.Printf("%q %d %v\n", res.Stdout.String(), res.ExitCode, err)

	res, _ = h.Run(context.Background(), harness.Request{Argv: []string{"touch", "x"}})
	fmt.Println(res.Ran, res.Decision, res.Refusal)
	// Output:
	// "hello\n" 0 <nil>
	// false deny denied by headless approver: fallback
}
