package tools

import (
	"os"
	"path"
	"path/filepath"
	"strconv"

	"github.com/rivumi/rivumi/harness"
)

// MaxReadOnlyPaths bounds the paths one shell command makes read-only
// (each is a mount): a workspace with more outside allowed_paths is
// refused under bwrap rather than run with some of them writable.
const MaxReadOnlyPaths = 10000

var readOnlyLimit = MaxReadOnlyPaths // tests lower it

// readOnlyPaths returns, for a shell command under bwrap, the workspace
// paths outside allowed_paths to mount read-only over the writable
// workspace: a directory that can hold nothing allowed_paths covers, whole;
// in a directory that can, each entry outside it (the work tree's .git link
// included). Symlinks are left alone (a mount would follow them; finish
// judges what happens to them). None when the backend cannot make a path
// inside the workspace read-only or every path is writable. refused is
// the reason when there are more than MaxReadOnlyPaths.
func (t *Tools) readOnlyPaths() (paths []string, refused string) {
	pol := t.w.Policy()
	if b, _ := t.h.Sandbox(); b != harness.SandboxBwrap || len(pol.Patterns()) == 0 {
		return nil, ""
	}
	root := t.w.Dir()
	var walk func(rel string) bool
	walk = func(rel string) bool {
		ents, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return true // gone or unreadable: nothing to mount
		}
		for _, e := range ents {
			p := path.Join(rel, e.Name())
			switch {
			case e.Type()&os.ModeSymlink != 0:
				continue
			case e.IsDir() && p != ".git" && pol.MayHoldWritable(p):
				if !walk(p) {
					return false
				}
				continue
			case !e.IsDir() && pol.Writable(p):
				continue
			}
			if len(paths) == readOnlyLimit {
				return false
			}
			paths = append(paths, filepath.Join(root, filepath.FromSlash(p)))
		}
		return true
	}
	if !walk(".") {
		return nil, "the workspace holds more than " + strconv.Itoa(readOnlyLimit) + " paths outside allowed_paths to make read-only in the sandbox: widen allowed_paths"
	}
	return paths, ""
}
