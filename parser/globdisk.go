package parser

import (
	"os"
	"path"
	"sort"
	"strings"
)

// Globs in command position, resolved on disk (issue 33): /b?n/r? -rf ~
// runs whatever the glob matches, the first match as the program and the
// others as its first arguments. When grading on the machine where the
// command will run (FollowSymlinks), the glob is matched read-only against
// the directories it names, and each match is graded as the program in a
// reading of its own, a child of the segment: the segment keeps its
// unknown program (it asks), so a reading can only add a reason, never
// lower the verdict. That matters because the disk may change before the
// word is expanded (an earlier command on the line may create files): the
// readings say what the glob matches now, not what it will.

const (
	globMaxMatches = 16    // matches read at most (more: none is graded)
	globMaxEntries = 20000 // entries of one directory read at most
	globMaxDirs    = 32    // directories read at most for one word
	globReadings   = 8     // readings made at most
)

// globReadings adds a reading per match of the program word ws[0], an
// unquoted glob of otherwise literal text, when the disk can be read.
func (p *walker) globReadings(f *frame, seg *Segment, ws []word) {
	if !p.cfg.follow || len(ws) == 0 || f.shell == "zsh" || p.vars.off || p.changed {
		return // zsh's globs differ; a shopt (nullglob, dotglob, extglob …) changes what matches
	}
	w := ws[0]
	if !w.glob || w.dynamic || w.text == "" {
		return
	}
	abs := p.env.absolute(w.text)
	if abs == "" || strings.HasPrefix(w.text, "~") {
		return // relative to an unknown cwd; ~ is not expanded in a glob here
	}
	matches, ok := globDisk(abs)
	if !ok || len(matches) == 0 {
		return // no match: bash passes the word as written, which names no program
	}
	if !strings.HasPrefix(w.text, "/") {
		// A relative glob expands to relative names, as written.
		dir := strings.TrimSuffix(p.env.cwd, "/") + "/"
		for i, m := range matches {
			matches[i] = strings.TrimPrefix(m, dir)
		}
	}
	rest := ws[1:]
	for i := 0; i < len(matches) && i < globReadings; i++ {
		// The first match by bash's collation is the program; the
		// collation depends on the locale, so each match is graded as
		// the program, the others following it in byte order.
		argv := make([]word, 0, len(matches)+len(rest))
		n := len(p.cmd.Segments)
		argv = append(argv, word{text: matches[i], path: matches[i], derived: true, childFrom: n, childTo: n})
		for j, m := range matches {
			if j != i {
				argv = append(argv, word{text: m, path: m, derived: true, childFrom: n, childTo: n})
			}
		}
		p.execChild(f, seg, append(argv, rest...), "", "")
	}
}

// globDisk matches the absolute glob pattern against the disk as bash
// does by default (no dotglob: a name starting with '.' is matched only by
// a pattern part starting with '.'; a part without glob characters is
// taken as written; only the last part may name a non-directory). ok is
// false when a bound is reached or the pattern is not one path.Match reads
// as bash does (character classes [[:x:]] and friends).
func globDisk(pattern string) (matches []string, ok bool) {
	if strings.Contains(pattern, "[[:") || strings.Contains(pattern, "[[=") || strings.Contains(pattern, "[[.") {
		return nil, false
	}
	parts := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	paths := []string{"/"}
	dirs := 0
	for k, part := range parts {
		last := k == len(parts)-1
		if part == "" {
			continue
		}
		var next []string
		glob := hasGlob(part, "bash")
		pat := bashBracket(part)
		for _, dir := range paths {
			if !glob {
				next = append(next, path.Join(dir, unescapeLit(part)))
				continue
			}
			if dirs++; dirs > globMaxDirs {
				return nil, false
			}
			names, ok := readNames(dir)
			if !ok {
				return nil, false
			}
			for _, name := range names {
				if strings.HasPrefix(name, ".") && !strings.HasPrefix(part, ".") {
					continue
				}
				m, err := path.Match(pat, name)
				if err != nil {
					return nil, false
				}
				if m {
					next = append(next, path.Join(dir, name))
				}
			}
			if len(next) > globMaxMatches {
				return nil, false
			}
		}
		// Every part but the last must be a directory (through links);
		// the last must exist.
		kept := next[:0]
		for _, c := range next {
			fi, err := os.Stat(c)
			if err != nil {
				if _, lerr := os.Lstat(c); lerr != nil || !last {
					continue
				}
			} else if !last && !fi.IsDir() {
				continue
			}
			kept = append(kept, c)
		}
		paths = kept
		if len(paths) == 0 {
			return nil, true
		}
	}
	sort.Strings(paths)
	return paths, true
}

// readNames lists a directory's names, bounded.
func readNames(dir string) ([]string, bool) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, true // unreadable: bash matches nothing there either
	}
	defer d.Close()
	names, err := d.Readdirnames(globMaxEntries + 1)
	if len(names) > globMaxEntries {
		return nil, false
	}
	if err != nil && len(names) == 0 {
		return nil, true
	}
	return names, true
}

// bashBracket rewrites bash's [!…] negation as path.Match's [^…] (every
// glob the parser hands to path.Match goes through it).
func bashBracket(p string) string {
	if !strings.Contains(p, "[!") {
		return p
	}
	return strings.ReplaceAll(p, "[!", "[^")
}
