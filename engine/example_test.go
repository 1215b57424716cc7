package engine_test

import (
	"context"
	"fmt"

	"github.com/rivumi/rivumi/engine"
)

func ExampleEngine_EvaluateText() {
	ctx := context.Background()
	e, err := engine.New(ctx)
	if err != nil {
		panic(err)
	}
	for _, cmd := range []string{"git status", "npm install left-pad", "git push --force origin main && rm -rf ~/"} {
		v := e.EvaluateText(ctx, cmd, engine.Workspace("/work/proj"), engine.Home("/home/dev"))
		fmt.Printf("%-5s %s\n", v.Decision, cmd)
		for _, r := range v.Reasons {
			fmt.Printf("      %s (%s)\n", r.Rule, r.Layer)
		}
	}
	// Output:
	// allow git status
	//       allow.git-readonly (allow)
	// ask   npm install left-pad
	//       packages.install (ask)
	// deny  git push --force origin main && rm -rf ~/
	//       git.force-push (deny)
	//       floor.rm-critical (floor)
}
