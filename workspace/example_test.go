package workspace_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rivumi/rivumi/workspace"
)

// exampleRepo makes a repository with one commit of hello.txt and returns
// its directory and the commit's SHA.
func exampleRepo() (dir, sha string) {
	dir, _ = os.MkdirTemp("", "source")
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello\n"), 0o644)
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=dev", "GIT_COMMITTER_EMAIL=dev@example.com")
		out, _ := cmd.Output()
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "hello")
	return dir, git("rev-parse", "HEAD")
}

func Example() {
	ctx := context.Background()
	src, sha := exampleRepo()
	defer os.RemoveAll(src)
	runs, _ := os.MkdirTemp("", "runs")
	defer os.RemoveAll(runs)

	w, err := workspace.Prepare(ctx, workspace.PrepareOptions{
		Source: src, Commit: sha, RunRoot: runs, Name: "greet", Task: "greet the world",
		Config: workspace.Config{AllowedPaths: []string{"*.txt"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	// The agent's tools (package tools) change the clone; here, directly.
	os.WriteFile(filepath.Join(w.Dir(), "hello.txt"), []byte("hello, world\n"), 0o644)

	res, err := w.Finish(ctx, "done")
	if err != nil {
		fmt.Println(err)
		return
	}
	patch, _ := os.ReadFile(filepath.Join(w.RunDir(), workspace.BundleDir, "changes.patch"))
	fmt.Println(res.Status, res.Reason, res.ChangedFiles)
	fmt.Println(strings.Contains(string(patch), "+hello, world"))
	orig, _ := os.ReadFile(filepath.Join(src, "hello.txt"))
	fmt.Printf("source: %q\n", orig)
	// Output:
	// unverified done [hello.txt]
	// true
	// source: "hello\n"
}
