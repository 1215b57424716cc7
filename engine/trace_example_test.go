package engine_test

import (
	"context"
	"fmt"

	"github.com/rivumi/rivumi/engine"
)

// A team's rule does not fire on curl -k: the trace names the expression
// that failed and the value it read (flags hold canonical names).
func ExampleEngine_Trace() {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.UserModule("team/net.rego", `package rivumi.user.team

# METADATA
# title: No insecure curl
# custom:
#   id: team.insecure-curl
#   justification: Fix the trust store instead.
deny contains {"id": "team.insecure-curl"} if {
	input.segment.program == "curl"
	"k" in input.segment.flags
}
`))
	if err != nil {
		panic(err)
	}
	_, t, err := e.Trace(ctx, "curl -k https://example.com", engine.TraceOptions{})
	if err != nil {
		panic(err)
	}
	for _, s := range t.Segments {
		fmt.Printf("%s: %s (the engine: %s)\n", s.Text, s.Decision, s.EngineDecision)
		for _, r := range s.Rules {
			fmt.Printf("  %s %s\n", r.ID, r.Outcome)
			for _, f := range r.Failed {
				fmt.Printf("    failed at %s: %s\n", f.Location, f.Text)
				for _, v := range f.Vars {
					fmt.Printf("      %s = %s\n", v.Name, v.Value)
				}
			}
		}
	}
	// Output:
	// curl -k https://example.com: ask (the engine: ask)
	//   team.insecure-curl did not fire
	//     failed at team/net.rego:10: "k" in input.segment.flags
	//       input.segment.flags = {"insecure"}
}
