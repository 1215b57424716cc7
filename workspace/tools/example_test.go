package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/tools"
)

func Example() {
	ctx := context.Background()
	// A repository with one commit.
	src, _ := os.MkdirTemp("", "source")
	defer os.RemoveAll(src)
	os.WriteFile(filepath.Join(src, "hello.txt"), []byte("hello\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "hello"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=dev", "-c", "user.email=dev@example.com"}, args...)...)
		cmd.Dir, cmd.Env = src, append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		cmd.Run()
	}
	head, _ := exec.Command("git", "-C", src, "rev-parse", "HEAD").Output()
	runs, _ := os.MkdirTemp("", "runs")
	defer os.RemoveAll(runs)

	w, err := workspace.Prepare(ctx, workspace.PrepareOptions{
		Source: src, Commit: strings.TrimSpace(string(head)), RunRoot: runs, Name: "run",
		Config: workspace.Config{AllowedPaths: []string{"hello.txt"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ts, err := tools.New(tools.Config{Workspace: w})
	if err != nil {
		fmt.Println(err)
		return
	}
	call := func(name, args string) tools.Result {
		res, err := ts.Call(ctx, name, json.RawMessage(args))
		if err != nil {
			panic(err)
		}
		return res
	}
	// A replace before a read is refused: an observation, not an error.
	res := call(tools.ToolReplaceText, `{"path":"hello.txt","old":"hello","new":"hello, world"}`)
	fmt.Println(res.OK, res.Error)

	res = call(tools.ToolReadFile, `{"path":"hello.txt"}`)
	var read tools.ReadFileOutput
	json.Unmarshal(res.Output, &read)
	fmt.Printf("%q %d\n", read.Content, len(read.SHA256))

	res = call(tools.ToolReplaceText, `{"path":"hello.txt","old":"hello","new":"hello, world"}`)
	fmt.Println(res.OK)

	res = call(tools.ToolRunCheck, `{"name":"test","timeout_seconds":60}`)
	fmt.Println(res.Error)
	// Output:
	// false hello.txt has not been read: call read_file first
	// "hello\n" 64
	// true
	// arguments: timeout_seconds is not accepted: the harness owns the timeout
}
