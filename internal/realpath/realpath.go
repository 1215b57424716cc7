// Package realpath resolves absolute paths through the symbolic links that
// exist on disk, the way the kernel will when a command opens them. It
// reads link targets (lstat and readlink) and never the contents of a
// file. It is the one resolver of the file-tool path policy (hook) and of
// the parser when it grades on the machine where a command will run.
//
// The answer holds only at the moment it is computed: a link created or
// changed between grading and running is not seen (the time-of-check
// window). The harness sandbox, not this package, is the wall for that.
package realpath

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// MaxLinks is how many links one resolution follows before it gives up
// (Linux's limit is 40): more is taken as a loop.
const MaxLinks = 40

// Resolve returns the physical absolute path of the absolute path name:
// every symlink along it is followed, dangling ones included (a write
// through a dangling link creates its target), and `..` applies to the
// resolved directory, as the kernel does. Components that do not exist
// are kept as written. More than [MaxLinks] links is an error (a loop); so
// is any lstat or readlink error but "does not exist" and "not a
// directory". On Windows the name is returned cleaned, unresolved.
func Resolve(name string) (string, error) {
	r, _, err := walk(name, nil, nil)
	return r, err
}

// Graded is [Resolve] for grading shell commands: it also reports whether
// a link was followed, and stops following links once the resolved prefix
// is inside a pseudo file system (/proc, /dev, /sys), whose links (such as
// /proc/self and /dev/stdout → /proc/self/fd/1) describe the grading
// process, not the command; the rest of the path is then kept as written,
// for the text rules to class.
func Graded(name string) (resolved string, linked bool, err error) {
	return walk(name, pseudo, nil)
}

// A Cache remembers what lstat and readlink answered during one grading,
// so that the paths of one command, which share their directories (the
// workspace's, above all), look each one up once. Its answers are those of
// the moment they were first asked: use one Cache for one command and drop
// it (a Cache kept longer would miss links made since). The zero value is
// ready to use; a Cache is not safe for concurrent use.
type Cache struct {
	m map[string]entry
}

// Reset empties c for another grading. It keeps the room it had, unless
// that was more than a few hundred paths.
func (c *Cache) Reset() {
	if len(c.m) > 256 {
		c.m = nil
	} else {
		clear(c.m)
	}
}

// entry is what lstat (and readlink, for a link) said of one path.
type entry struct {
	link   bool   // a symbolic link, to target
	target string // the link's target
	gone   bool   // it does not exist, or a component is not a directory
	err    error  // another lstat or readlink error
}

// Graded is [Graded] answered from c where c saw the path's components
// before.
func (c *Cache) Graded(name string) (resolved string, linked bool, err error) {
	return walk(name, pseudo, c)
}

// look returns what lstat (and readlink) say of name, from c when c was
// asked before (c may be nil: nothing is remembered).
func (c *Cache) look(name string) entry {
	if c != nil {
		if e, ok := c.m[name]; ok {
			return e
		}
	}
	var e entry
	fi, err := os.Lstat(name)
	switch {
	case err != nil && (errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)):
		e.gone = true
	case err != nil:
		e.err = err
	case fi.Mode()&os.ModeSymlink != 0:
		e.link = true
		e.target, e.err = os.Readlink(name)
	}
	if c != nil {
		if c.m == nil {
			c.m = make(map[string]entry)
		}
		c.m[name] = e
	}
	return e
}

func pseudo(dir string) bool {
	for _, p := range [...]string{"/proc", "/dev", "/sys"} {
		if strings.HasPrefix(dir, p) && (len(dir) == len(p) || dir[len(p)] == '/') {
			return true
		}
	}
	return false
}

func walk(name string, stop func(string) bool, cache *Cache) (string, bool, error) {
	if filepath.Separator != '/' {
		// Windows paths (drive letters, backslashes, reparse points) are
		// not resolved: the name is kept as written.
		return filepath.Clean(name), false, nil
	}
	if !strings.HasPrefix(name, "/") {
		return "", false, fmt.Errorf("%q is not absolute", name)
	}
	queue := strings.Split(name, "/")
	resolved := "/"
	links := 0
	lexical := false // once a component is missing, the rest is taken as written
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = parent(resolved)
			continue
		}
		next := join(resolved, c)
		if lexical || stop != nil && stop(next) {
			resolved = next
			continue
		}
		e := cache.look(next)
		if e.err != nil && !e.link {
			return "", links > 0, e.err
		}
		if e.gone {
			lexical = true
			resolved = next
			continue
		}
		if !e.link {
			resolved = next
			continue
		}
		links++
		if links > MaxLinks {
			return "", true, fmt.Errorf("too many levels of symbolic links in %q", name)
		}
		target := e.target
		if e.err != nil {
			return "", true, e.err
		}
		if strings.HasPrefix(target, "/") {
			resolved = "/"
		}
		queue = append(strings.Split(target, "/"), queue...)
	}
	return resolved, links > 0, nil
}

func parent(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

func join(dir, c string) string {
	if dir == "/" {
		return "/" + c
	}
	return dir + "/" + c
}
