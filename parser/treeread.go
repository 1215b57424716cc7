package parser

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Recursive searches over trees that hold secrets. `cat .env` reads a
// secret as its operand says; `grep -r KEY .`, `rg KEY`, `find . -exec
// grep KEY {} +` read it too, but no word names it. With FollowSymlinks
// (grading on the machine the command runs on) the trees such a search
// prints the contents of are looked at: every secret file in them (by the
// same classes as an operand) becomes a read of the segment, so the
// secret-read rules see it. A tree too large to look at completely counts
// as holding one.

// treeWalkLimit bounds the entries looked at per segment (a variable for
// the test).
var treeWalkLimit = 20000

// maxTreeSecrets is how many secret files found are added as reads.
const maxTreeSecrets = 3

// treeReader says whether segment s prints the contents of every file
// below its directory operands (and the cwd when it names none), whether
// hidden entries are among them, whether it follows links below the
// roots, and whether the roots are the cwd when no operand names one.
func (p *walker) treeReader(s *Segment) (ok, hidden, follow, cwdDefault bool) {
	e := p.entry(s.Program)
	if e == nil {
		return false, false, false, false
	}
	if s.HasTag(TagListedArgs) {
		// find -exec grep {} / xargs cat: the roots of the listing.
		switch e.Name {
		case "grep", "cat", "head", "tail":
			return !namesOnly(s), true, false, false
		}
		return false, false, false, false
	}
	if !slices.Contains(e.Kinds, "searches_contents") || namesOnly(s) {
		return false, false, false, false
	}
	switch e.Name {
	case "grep":
		rec := hasFlag(s.Flags, "recursive") || hasFlag(s.Flags, "dereference-recursive") ||
			slices.Contains(s.Options["directories"], "recurse")
		return rec, true, hasFlag(s.Flags, "dereference-recursive"), true
	case "rg":
		// ripgrep skips hidden entries unless told (--hidden, -., -uu).
		return true, hasFlag(s.Flags, "hidden") || hasFlag(s.Flags, "unrestricted"), hasFlag(s.Flags, "follow"), true
	case "ag":
		return true, hasFlag(s.Flags, "hidden") || hasFlag(s.Flags, "unrestricted") || hasFlag(s.Flags, "u") ||
			hasFlag(s.Flags, "all-types") || hasFlag(s.Flags, "a"), hasFlag(s.Flags, "follow") || hasFlag(s.Flags, "f"), true
	case "ack":
		return true, true, hasFlag(s.Flags, "follow"), true
	}
	return false, false, false, false
}

// namesOnly reports a search that prints file names or counts, not lines.
func namesOnly(s *Segment) bool {
	for _, f := range []string{"files-with-matches", "files-without-match", "count", "quiet", "files", "l", "L", "c", "q"} {
		if hasFlag(s.Flags, f) {
			return true
		}
	}
	return false
}

// treeSecrets adds to s.Reads the secret files below the trees s reads
// (see treeReader); only with FollowSymlinks.
func (p *walker) treeSecrets(s *Segment, ops []Operand) {
	if p.env.fs == nil {
		return
	}
	ok, hidden, follow, cwdDefault := p.treeReader(s)
	if !ok {
		return
	}
	if n := p.entry(s.Program).Name; (n == "ag" || n == "ack") && len(ops) > 0 {
		ops = ops[1:] // the pattern (rivumi knows no options of theirs)
	}
	var roots []string
	for _, o := range ops {
		if o.abs != "" && (!o.Dynamic || s.HasTag(TagListedArgs)) {
			roots = append(roots, o.abs)
		}
	}
	if len(ops) == 0 && cwdDefault && p.env.cwd != "" {
		roots = append(roots, p.env.cwd)
	}
	w := treeWalk{hidden: hidden, follow: follow, include: s.Options["include"], exclude: s.Options["exclude"],
		excludeDir: s.Options["exclude-dir"], class: p.env.classAbs}
	if f := s.listedBy; f != nil && plainFind(f) {
		// find lists what its -name patterns select: a file matching
		// none of them is not listed (whether they are joined by -a or
		// -o); -iname compares without case.
		w.include = append(slices.Clip(f.Options["name"]), lowerAll(f.Options["iname"])...)
		w.fold = len(f.Options["iname"]) > 0
	} else if s.listedGlobs != nil {
		w.include = s.listedGlobs // git ls-files PATTERN (substlisting.go)
	}
	for _, r := range roots {
		if !w.walk(r) {
			break
		}
	}
	for _, f := range w.found {
		s.Reads = append(s.Reads, Operand{Text: p.env.display(f.path), Path: p.env.display(f.path), Class: f.class, Dynamic: true, abs: f.path})
	}
	if w.cut != "" {
		s.Reads = append(s.Reads, Operand{Text: w.cut, Class: ClassSecret, Dynamic: true})
	}
}

// treeWalk looks for secret files below roots.
type treeWalk struct {
	hidden, follow, fold         bool // fold: include patterns also match the lowered name
	include, exclude, excludeDir []string
	class                        func(abs string) string
	selectFile                   func(rel string) bool // nil: every file
	n                            int
	found                        []treeSecret
	cut                          string // why the walk stopped short, and where
}

type treeSecret struct{ path, class string }

// walk looks below root; false when the search is over (enough found, or
// the limit hit).
func (w *treeWalk) walk(root string) bool {
	if c := w.class(root); secretPlace[c] {
		return true // the root itself is a secret operand: classed already
	}
	start := root
	if r, err := filepath.EvalSymlinks(root); err == nil {
		start = r // a link named as an operand is followed by every searcher
	}
	fi, err := os.Stat(start)
	if err != nil || !fi.IsDir() {
		return true
	}
	done := false
	filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: the searcher cannot read it either
		}
		if w.n++; w.n > treeWalkLimit {
			w.cut, done = root+"/… (over "+strconv.Itoa(treeWalkLimit)+" entries: not all looked at)", true
			return fs.SkipAll
		}
		name := d.Name()
		// The path as the command names it: below root, not its target.
		shown := root
		if rel, err := filepath.Rel(start, p); err == nil && rel != "." {
			shown = path.Join(root, filepath.ToSlash(rel))
		}
		if p != start && !w.hidden && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p == start {
				return nil
			}
			if matchAny(w.excludeDir, name) {
				return fs.SkipDir
			}
			// A secret directory (.ssh, .aws, .config/gcloud …): all of it
			// is read.
			if c := w.class(shown); secretPlace[c] && w.selectFile == nil {
				return w.add(shown, c)
			}
			return nil // with selectFile: its files are classed one by one
		}
		if len(w.include) > 0 && !matchAny(w.include, name) && !(w.fold && matchAny(w.include, strings.ToLower(name))) || matchAny(w.exclude, name) {
			return nil
		}
		if w.selectFile != nil {
			if rel, err := filepath.Rel(start, p); err != nil || !w.selectFile(filepath.ToSlash(rel)) {
				return nil
			}
		}
		// Below a directory that is no secret, a file is one by its name
		// (or, under /etc, by its path): the full classing only then.
		c := ""
		if w.selectFile != nil || isSecretName(name) || strings.HasPrefix(shown, "/etc/") || strings.HasPrefix(shown, "/private/etc/") || d.Type()&fs.ModeSymlink != 0 {
			c = w.class(shown)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if !w.follow {
				return nil // links below the roots are not followed
			}
			t, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil
			}
			if tc := w.class(t); secretPlace[tc] {
				c = tc
			} else if tfi, err := os.Stat(t); err == nil && tfi.IsDir() {
				// A directory reached through a link: not walked here, so
				// not known to hold no secret.
				w.cut, done = shown+" (a link to a directory: not looked into)", true
				return fs.SkipAll
			}
		}
		if secretPlace[c] {
			return w.add(shown, c)
		}
		return nil
	})
	return !done && len(w.found) < maxTreeSecrets
}

// add records a secret found; past maxTreeSecrets the walk is over.
func (w *treeWalk) add(shown, class string) error {
	w.found = append(w.found, treeSecret{shown, class})
	if len(w.found) >= maxTreeSecrets {
		return fs.SkipAll
	}
	return fs.SkipDir // for a directory: all of it is read; for a file: the rest of its directory is not looked at
}

// plainFind reports a find whose predicates are only joined by -a: no
// negation, alternative or grouping that could list a file no -name
// pattern selects.
func plainFind(f *Segment) bool {
	for _, a := range f.Argv[1:] {
		switch a {
		case "!", "-not", "-o", "-or", "(", ")", ",":
			return false
		}
	}
	return true
}

func lowerAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}

// matchAny reports whether name matches one of the globs (grep's
// --include/--exclude, by fnmatch; a bad pattern matches nothing).
func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if ok, err := path.Match(g, name); err == nil && ok {
			return true
		}
	}
	return false
}

// SecretsBelow walks the directory root on disk (readdir only; no file is
// opened) as a search that reads every file below it would, and returns
// the secret files and directories it finds there (at most 3; classed as
// [ClassifyPath] classes them, with the Workspace and Home options), and,
// when the walk was cut short (over 20,000 entries), why: a caller must
// then take the tree as holding a secret. selectFile, when not nil, says
// whether the search reads a file (by its slash path relative to root);
// hidden entries are included, links below root are not followed (a link
// as root is). A root that is no directory yields nothing.
func SecretsBelow(root string, selectFile func(rel string) bool, opts ...Option) (found []string, cut string) {
	w := newWalker(opts, "")
	defer w.release()
	tw := treeWalk{hidden: true, class: w.env.classAbs, selectFile: selectFile}
	tw.walk(cleanAbs(root))
	for _, f := range tw.found {
		found = append(found, f.path)
	}
	return found, tw.cut
}
