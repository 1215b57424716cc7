package rules

import (
	"sort"
	"strings"
	"sync"

	"github.com/rivumi/rivumi/programs"
)

// ProjectLoaders returns, for each name of a program that loads and runs
// project files even when asked only for --version or --help, those files
// (relative to the project root): the registry's loads_on_version entries.
// The caller must not modify the slices.
func ProjectLoaders() map[string][]string {
	out := map[string][]string{}
	for _, p := range programs.All() {
		if p.LoadsOnVersion {
			for _, n := range p.Names {
				out[n] = p.Loads
			}
		}
	}
	return out
}

var (
	loadedOnce  sync.Once
	loadedFiles map[string]bool // base names, lower case
	loadedPaths []string        // "/"-prefixed path suffixes, lower case
)

// IsProjectCode reports whether a file at path (slash-separated, any case)
// is one that a shim loads from the project (the loads of the registry's
// shim entries: .tool-versions, mise.toml): it runs when any program the
// shim stands in for starts, allowed ones included, so writing it is
// writing code. The files other programs load (conftest.py, Makefile,
// package.json …) are ordinary workspace files: every command that loads
// them asks already.
func IsProjectCode(path string) bool {
	loadedOnce.Do(func() {
		loadedFiles = map[string]bool{}
		for _, p := range programs.All() {
			if !p.Shim {
				continue
			}
			for _, f := range p.Loads {
				if strings.Contains(f, "/") {
					loadedPaths = append(loadedPaths, "/"+strings.ToLower(f))
				} else {
					loadedFiles[strings.ToLower(f)] = true
				}
			}
		}
		sort.Strings(loadedPaths)
	})
	lp := strings.ToLower(strings.TrimRight(path, "/"))
	if loadedFiles[lp[strings.LastIndexByte(lp, '/')+1:]] {
		return true
	}
	for _, p := range loadedPaths {
		// p starts with a slash: the suffix of "/"+lp, without building it.
		if strings.HasSuffix(lp, p) || len(p) == len(lp)+1 && p[1:] == lp {
			return true
		}
	}
	return false
}
