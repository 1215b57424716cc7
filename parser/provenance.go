package parser

import "strings"

// Provenance of the files a command makes for itself. Within one command
// text the walker remembers what earlier segments put at a path: a download
// (wget, curl -o, git clone DIR: the whole tree), a copy of another file
// (cp, install, mv) or a link to it (ln, ln -s, cp -s, cp -l). A later
// segment that runs such a file is graded as running what it came from (a
// download: floor.download-exec; a copy of /bin/sh: that shell, its -c
// code parsed), and a write through a link is graded as a write to its
// target too (ln -sf /dev/sda out.img && dd of=out.img). Paths are
// absolute, resolved against the cwd as the command changes it. A file
// whose provenance is not known is graded as before.

// maxProvenanceSteps bounds the copy and link chains followed.
const maxProvenanceSteps = 8

// rewritePrefix finds the longest prefix of abs (a whole path element)
// that m maps, and returns abs with that prefix replaced.
func rewritePrefix(m map[string]string, abs string) (string, bool) {
	if len(m) == 0 || abs == "" {
		return abs, false
	}
	for p := abs; ; {
		if t, ok := m[p]; ok {
			return t + abs[len(p):], true
		}
		i := strings.LastIndexByte(p, '/')
		if i <= 0 {
			return abs, false
		}
		p = p[:i]
	}
}

// origin returns the file abs was copied or linked from, following chains
// (cp /bin/sh a && ln -s a b: b comes from /bin/sh), or abs itself.
func (p *walker) origin(abs string) string {
	for i := 0; i < maxProvenanceSteps; i++ {
		t, ok := rewritePrefix(p.linkTo, abs)
		if !ok {
			t, ok = rewritePrefix(p.copyOf, abs)
		}
		if !ok || t == abs {
			return abs
		}
		abs = t
	}
	return abs
}

// downloaded reports whether the file at abs, or what it was copied or
// linked from, came from the network earlier in the command.
func (p *walker) downloaded(abs string) bool {
	if abs == "" {
		return false
	}
	for i := 0; i <= maxProvenanceSteps; i++ {
		if p.download[abs] {
			return true
		}
		if _, ok := rewritePrefix(p.fetchedTree, abs); ok {
			return true
		}
		t, ok := rewritePrefix(p.linkTo, abs)
		if !ok {
			t, ok = rewritePrefix(p.copyOf, abs)
		}
		if !ok || t == abs {
			return false
		}
		abs = t
	}
	return false
}

// throughLinks returns where a write or read of abs lands when it passes
// through links an earlier segment made (final says whether the last
// element is followed too), and whether it passed any.
func (p *walker) throughLinks(abs string, final bool) (string, bool) {
	if len(p.linkTo) == 0 || abs == "" {
		return abs, false
	}
	passed := false
	for i := 0; i < maxProvenanceSteps; i++ {
		t, ok := abs, false
		if final {
			t, ok = rewritePrefix(p.linkTo, abs)
		} else if j := strings.LastIndexByte(abs, '/'); j > 0 {
			var dir string
			dir, ok = rewritePrefix(p.linkTo, abs[:j])
			t = dir + abs[j:]
		}
		if !ok || t == abs {
			break
		}
		abs, passed = cleanPath(t), true
	}
	return abs, passed
}

// madeLink grades a path that passes through a link made earlier in the
// command: its class becomes the stricter of the link's and the target's.
// Deleting, moving or replacing a link (rm link, mv link x, ln -sf x link,
// without a trailing slash) does not touch its target, so the last element
// is not followed for rm, unlink, rmdir, mv and ln. A glob is classed by
// its directory (ln -s / r && rm -rf r/* empties /).
func (p *walker) madeLink(op *Operand, written string, glob bool) {
	abs := op.abs
	final := !linkOwnPrograms[p.opProg] || strings.HasSuffix(written, "/") || strings.HasSuffix(written, "/.")
	if glob {
		i := strings.IndexAny(written, "*?[")
		j := strings.LastIndexByte(written[:i], '/')
		if j < 0 {
			return // a glob of the cwd's entries: the cwd was followed already
		}
		abs, final = p.env.absolute(written[:j+1]), true
	}
	t, ok := p.throughLinks(abs, final)
	if !ok {
		return
	}
	tc := p.env.classAbs(t)
	if stricter(op.Class, tc) == op.Class {
		if op.LinkClass == "" {
			op.Link, op.LinkClass = p.env.display(t), tc
		}
		return
	}
	op.Link, op.LinkClass, op.Class = p.env.display(t), op.Class, tc
}

// linkOwnPrograms act on a link itself when it is the last element.
var linkOwnPrograms = map[string]bool{"rm": true, "unlink": true, "rmdir": true, "mv": true, "ln": true}

// recordCopies remembers what cp, install, mv and ln made, after their
// facts are known.
func (p *walker) recordCopies(seg *Segment) {
	prog := seg.Program
	ops := seg.Operands
	if prog != "cp" && prog != "install" && prog != "mv" && prog != "ln" {
		return
	}
	if prog == "install" && hasFlag(seg.Flags, "directory") {
		return
	}
	dest, srcs := "", ops
	destDir := false
	if t := seg.Options["target-directory"]; len(t) > 0 {
		dest, destDir = p.env.absolute(t[len(t)-1]), true
	} else if len(ops) >= 2 {
		dest, srcs = ops[len(ops)-1].abs, ops[:len(ops)-1]
		if ops[len(ops)-1].Dynamic {
			return
		}
	} else if len(ops) == 1 && prog == "ln" {
		dest, destDir = p.env.cwd, true // ln -s TARGET: a link named like it, here
	}
	if dest == "" {
		return
	}
	symbolic := prog == "ln" && hasFlag(seg.Flags, "symbolic") || prog == "cp" && hasFlag(seg.Flags, "symbolic-link")
	link := symbolic || prog == "ln" || prog == "cp" && hasFlag(seg.Flags, "link")
	for _, s := range srcs {
		if s.abs == "" || s.Dynamic && !strings.HasPrefix(s.Path, "~") { // $HOME is known
			continue
		}
		src := s.abs
		if symbolic && prog == "ln" && !strings.HasPrefix(s.Text, "/") && !strings.HasPrefix(s.Path, "~") && !hasFlag(seg.Flags, "relative") {
			src = "" // resolved from the link's directory, below
		}
		var names []string
		if destDir || len(srcs) > 1 {
			names = []string{dest + "/" + baseName(s.Text)}
		} else {
			// DEST may be a directory (DEST/NAME) or the new file itself.
			names = []string{dest, dest + "/" + baseName(s.Text)}
		}
		for _, n := range names {
			n = cleanPath(n)
			target := src
			if target == "" {
				target = cleanPath(dirOf(n) + "/" + s.Text)
			}
			if target == n {
				continue
			}
			switch {
			case link:
				put(&p.linkTo, n, target)
			case prog == "mv":
				if t, ok := p.linkTo[src]; ok {
					put(&p.linkTo, n, t) // a moved link still points where it did
				} else {
					put(&p.copyOf, n, target)
				}
			default:
				put(&p.copyOf, n, target)
			}
		}
	}
}

// gitCloneTree remembers the directory git clone fills from the network.
func (p *walker) gitCloneTree(seg *Segment) {
	if seg.Program != "git" || seg.Subcommand != "clone" || len(seg.Operands) == 0 {
		return
	}
	ops := seg.Operands
	var dir string
	switch {
	case len(ops) >= 2 && !ops[1].Dynamic:
		dir = ops[1].abs
	case len(ops) == 1 && !ops[0].Dynamic:
		name := strings.TrimSuffix(baseName(strings.TrimSuffix(ops[0].Text, "/")), ".git")
		if i := strings.LastIndexByte(name, ':'); i >= 0 {
			name = name[i+1:] // git@host:repo
		}
		if name != "" && name != "." && name != ".." {
			switch seg.segCwdAbs {
			case "":
				dir = p.env.absolute(name)
			case "?":
			default:
				dir = cleanPath(seg.segCwdAbs + "/" + name) // git -C DIR clone URL
			}
		}
	}
	if dir != "" {
		put(&p.fetchedTree, dir, "") // the value is unused: a set with rewritePrefix's lookup
	}
}

// aliasChild grades a program run by a path an earlier segment copied or
// linked from another file (cp /bin/sh /tmp/x && /tmp/x -c …): the same
// arguments are graded as run by the original, a child of the segment.
func (p *walker) aliasChild(f *frame, seg *Segment, ws []word, abs string) {
	o := p.origin(abs)
	if o == abs || o == "" {
		return
	}
	nws := append([]word{{text: o, path: o}}, ws[1:]...)
	p.runnerChild(f, seg, "copy-of", nws)
}

// teeWritten remembers the static text tee copies from its input into its
// files (echo 'rm -rf /' | tee x.sh && bash x.sh).
func (p *walker) teeWritten(f *frame, seg *Segment) {
	text, _, ok := p.stdinData(f)
	for _, o := range seg.Operands {
		if o.abs == "" {
			continue
		}
		switch {
		case !ok || o.Dynamic:
			delete(p.written, o.abs)
		case hasFlag(seg.Flags, "append"):
			if prev, had := p.written[o.abs]; had {
				put(&p.written, o.abs, prev+text)
			}
		default:
			put(&p.written, o.abs, text)
		}
	}
}
