package pathpolicy_test

import (
	"fmt"
	"os"

	"github.com/rivumi/rivumi/workspace/pathpolicy"
)

func Example() {
	root, _ := os.MkdirTemp("", "ws")
	defer os.RemoveAll(root)
	os.Mkdir(root+"/src", 0o755)

	allowed, err := pathpolicy.ParsePatterns([]string{"./src/**"})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := pathpolicy.New(root, allowed)
	fmt.Println(p.Patterns())
	for _, path := range []string{"src/a/b.go", "README", "../etc/passwd", ".git/config", `src\a.go`} {
		if _, _, err := p.Resolve(path, pathpolicy.Write); err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println("may write", path)
	}
	// Output:
	// [src/**]
	// may write src/a/b.go
	// path "README": not in the allowed paths
	// path "../etc/passwd": ".." segment (paths stay inside the workspace)
	// path ".git/config": ".git" segment (the repository's metadata is off limits)
	// path "src\\a.go": contains a backslash (use forward slashes)
}
