package harness

import (
	"fmt"
	"os"
	"path/filepath"
)

// NotFoundError reports a program that is not an executable file, by
// path or on the child's PATH.
type NotFoundError struct {
	Name string
	Err  error
}

func (e *NotFoundError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.Name, e.Err)
	}
	return fmt.Sprintf("%s: executable file not found in the child's PATH", e.Name)
}

func (e *NotFoundError) Unwrap() error { return e.Err }

// ProgramChangedError reports that argv[0] resolved to a different file
// at exec time than at grading time (a PATH entry gained a program, a
// symlink was swapped, the file was replaced or rewritten).
type ProgramChangedError struct {
	Name           string
	Graded, AtExec string // "path (dev:ino size mtime)"
}

func (e *ProgramChangedError) Error() string {
	return fmt.Sprintf("%s changed between grading and exec: was %s, now %s", e.Name, e.Graded, e.AtExec)
}

// program is a resolved argv[0] and the identity of the file it names.
type program struct {
	path            string // absolute, symlinks not resolved
	dev, ino        uint64
	size, mtimeNsec int64
}

func (p program) String() string {
	return fmt.Sprintf("%s (%d:%d %d bytes, mtime %d)", p.path, p.dev, p.ino, p.size, p.mtimeNsec)
}

func (p program) same(q program) bool { return p == q }

// resolveProgram finds name as exec would, but against pathEnv (the
// child's PATH, relative entries already dropped) and relative to dir for
// names with a slash, and records the identity of the file it names
// (os.Stat: symlinks followed).
func resolveProgram(name, dir, pathEnv string) (program, error) {
	if name == "" {
		return program{}, &NotFoundError{Name: name, Err: fmt.Errorf("empty program name")}
	}
	if hasDirPart(name) {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		prog, err := identify(p)
		if err != nil {
			return program{}, &NotFoundError{Name: name, Err: err}
		}
		return prog, nil
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		for _, cand := range pathCandidates(name) {
			if prog, err := identify(filepath.Join(d, cand)); err == nil {
				return prog, nil
			}
		}
	}
	return program{}, &NotFoundError{Name: name}
}

func identify(path string) (program, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return program{}, err
	}
	if !fi.Mode().IsRegular() {
		return program{}, fmt.Errorf("not a regular file")
	}
	if err := executable(path, fi); err != nil {
		return program{}, err
	}
	dev, ino, err := fileID(path, fi)
	if err != nil {
		return program{}, fmt.Errorf("no file identity: %w", err)
	}
	return program{
		path:      filepath.Clean(path),
		dev:       dev,
		ino:       ino,
		size:      fi.Size(),
		mtimeNsec: fi.ModTime().UnixNano(),
	}, nil
}

// recheck resolves name again and returns a [*ProgramChangedError] if it
// is no longer the graded program.
func recheck(name, dir, pathEnv string, graded program) error {
	now, err := resolveProgram(name, dir, pathEnv)
	if err != nil {
		return &ProgramChangedError{Name: name, Graded: graded.String(), AtExec: err.Error()}
	}
	if !now.same(graded) {
		return &ProgramChangedError{Name: name, Graded: graded.String(), AtExec: now.String()}
	}
	return nil
}
