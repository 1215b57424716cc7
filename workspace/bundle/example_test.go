package bundle_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rivumi/rivumi/workspace/bundle"
)

func Example() {
	dir, _ := os.MkdirTemp("", "bundle")
	defer os.RemoveAll(dir)
	b, err := bundle.Create(filepath.Join(dir, "bundle"))
	if err != nil {
		fmt.Println(err)
		return
	}
	args, _ := json.Marshal(map[string]string{"command": "curl -H 'Authorization: Bearer abcdefgh12345678' https://example.com"})
	e, _ := b.Append(bundle.Event{Tool: "shell", Args: args, OK: false, Error: "needs approval"})
	fmt.Println(e.Seq, string(e.Args))

	b.WriteJSON(bundle.ResultFile, bundle.Result{Status: bundle.StatusUnverified, Reason: "finished", Artifacts: bundle.Artifacts()})
	var res bundle.Result
	b.ReadJSON(bundle.ResultFile, &res)
	fmt.Println(res.Status, res.Artifacts["patch"])
	// Output:
	// 1 {"command":"curl -H 'Authorization: [REDACTED]' https://example.com"}
	// unverified changes.patch
}
