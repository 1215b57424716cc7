// What a segment does to the filesystem: the paths it writes and reads,
// what it fetches, and where a cd takes the commands after it.

package parser

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"

	"github.com/rivumi/rivumi/internal/lazyre"
	"github.com/rivumi/rivumi/programs"
)

// What a program writes and reads by operand and option comes from the
// program registry (writes_operands, write_options, read_options; jq's
// --rawfile and the like too).

// writesOperands reports a program that removes, truncates or creates every
// operand (rm, shred, touch, tee).
func writesOperands(p *programs.Program) bool { return p != nil && p.WritesOperands }

// writeOptions returns the canonical names of the options whose value is a
// file the program writes (curl -o, sort -o).
func writeOptions(p *programs.Program) []string {
	if p != nil {
		return p.WriteOptions
	}
	return nil
}

// readsOption reports whether the value of the program's option name is a
// file it reads (and may print: wc --files0-from prints its lines in
// errors).
func readsOption(p *programs.Program, name string) bool {
	return p != nil && slices.Contains(p.ReadOptions, name)
}

func (p *walker) facts(f *frame, seg *Segment, operands []word) {
	prog := seg.Program
	ops := seg.Operands
	switch {
	case writesOperands(p.entry(prog)):
		seg.Writes = append(seg.Writes, ops...)
	case prog == "cp" || prog == "install" || prog == "ln" || prog == "rsync" || prog == "scp":
		if len(seg.Options["target-directory"]) == 0 && len(ops) > 0 {
			seg.Writes = append(seg.Writes, ops[len(ops)-1])
		}
		p.intoDirWrites(seg, ops)
		if prog == "rsync" && (hasFlag(seg.Flags, "remove-source-files") || hasFlag(seg.Flags, "delete")) && len(ops) > 1 {
			seg.Writes = append(seg.Writes, ops[:len(ops)-1]...)
		}
	case prog == "mv":
		seg.Writes = append(seg.Writes, ops...)
		p.intoDirWrites(seg, ops)
	case prog == "setfacl":
		seg.Writes = append(seg.Writes, ops...) // the ACL comes by option
	case prog == "chmod" || prog == "chown" || prog == "chgrp" || prog == "chattr":
		if len(ops) > 1 && len(seg.Options["reference"]) == 0 {
			seg.Writes = append(seg.Writes, ops[1:]...)
		} else if len(seg.Options["reference"]) > 0 {
			seg.Writes = append(seg.Writes, ops...)
		}
	case prog == "dd":
		for _, o := range ops {
			if v, ok := strings.CutPrefix(o.Text, "of="); ok {
				seg.Options["of"] = append(seg.Options["of"], v)
				seg.Writes = append(seg.Writes, p.operand(word{text: v, path: v, dynamic: o.Dynamic}))
			}
			if v, ok := strings.CutPrefix(o.Text, "if="); ok {
				seg.Options["if"] = append(seg.Options["if"], v)
				switch v {
				case "/dev/zero", "/dev/null", "/dev/urandom", "/dev/random":
				default:
					seg.Reads = append(seg.Reads, p.operand(word{text: v, path: v, dynamic: o.Dynamic}))
				}
			}
		}
	case (prog == "uniq" || prog == "xxd") && len(ops) > 1:
		// uniq IN OUT, xxd [-r] IN OUT: the second operand is written.
		seg.Writes = append(seg.Writes, ops[1])
	case prog == "gzip" || prog == "gunzip" || prog == "bzip2" || prog == "bunzip2" || prog == "xz" || prog == "unxz" || prog == "zstd" || prog == "unzstd":
		// They replace each file operand with its (de)compressed sibling.
		if !hasFlag(seg.Flags, "stdout") && !hasFlag(seg.Flags, "c") && !hasFlag(seg.Flags, "d") || hasFlag(seg.Flags, "d") && !hasFlag(seg.Flags, "c") {
			seg.Writes = append(seg.Writes, ops...)
		}
	case prog == "tar" || prog == "bsdtar" || prog == "gtar":
		p.tarWrites(seg)
	case prog == "unzip" && (hasFlag(seg.Flags, "l") || hasFlag(seg.Flags, "v") || hasFlag(seg.Flags, "t") || hasFlag(seg.Flags, "Z") ||
		hasFlag(seg.Flags, "z") || hasFlag(seg.Flags, "p") || hasFlag(seg.Flags, "c")):
		// unzip -l/-v/-t/-Z/-z list, test or show; -p/-c print to stdout.
	case prog == "unzip" || prog == "7z" || prog == "unrar" || prog == "cpio":
		dir := "."
		if d := seg.Options["d"]; len(d) > 0 {
			dir = d[0]
		}
		seg.Writes = append(seg.Writes, p.operand(word{text: dir, path: dir}))
	case prog == "yq":
		ops = p.yqExpression(seg, ops)
		// yq -s EXPR writes one file per document, named by EXPR; -i
		// rewrites its inputs.
		for _, e := range seg.Options["split-exp"] {
			name := strings.TrimSuffix(strings.TrimPrefix(e, "\""), "\"")
			literal := len(e) >= 2 && e[0] == '"' && e[len(e)-1] == '"' && !strings.ContainsAny(name, "\"\\$()|+")
			if !literal {
				seg.Writes = append(seg.Writes, Operand{Text: e, Class: ClassDynamic, Dynamic: true})
			} else {
				seg.Writes = append(seg.Writes, p.operand(word{text: name, path: name}))
			}
		}
		if hasFlag(seg.Flags, "inplace") {
			seg.Writes = append(seg.Writes, ops...)
		}
	case prog == "printenv" || prog == "env" || prog == "set" || prog == "export" || prog == "declare" || prog == "typeset":
		// They print variables: all of them without names, or the named ones.
		// `set` prints them only when it has no arguments at all: `set -e`
		// and `set -o pipefail` set options (bash's `set -o` alone prints
		// options, not variables).
		bare := prog == "printenv" || prog == "env" || (prog == "set" && len(seg.Argv) == 1)
		if len(ops) == 0 && (bare || hasFlag(seg.Flags, "p")) {
			seg.tag(TagSecretEnv)
		}
		for _, o := range ops {
			if prog == "printenv" && secretVarName(o.Text) {
				seg.tag(TagSecretEnv)
			}
		}
	case prog == "ps":
		// ps e (BSD) and -o environ print other processes' environments.
		for _, o := range ops {
			if !strings.HasPrefix(o.Text, "-") && strings.Contains(o.Text, "e") {
				seg.tag(TagSecretEnv)
			}
		}
		for _, vals := range seg.Options {
			for _, v := range vals {
				if strings.Contains(v, "env") {
					seg.tag(TagSecretEnv)
				}
			}
		}
	case prog == "grep" || prog == "egrep" || prog == "fgrep" || prog == "rg" || prog == "ag":
		// --include=.env, -g '.env': file name patterns are reads too.
		for _, k := range []string{"include", "glob", "iglob", "G"} {
			for _, v := range seg.Options[k] {
				seg.Reads = append(seg.Reads, p.operand(word{text: v, path: v, pathGlob: strings.ContainsAny(v, "*?[")}))
			}
		}
	case prog == "cd" || prog == "pushd" || prog == "popd" || prog == "chdir":
		p.changeDir(seg, operands)
	}
	for _, k := range writeOptions(p.entry(prog)) {
		for _, v := range seg.Options[k] {
			seg.Writes = append(seg.Writes, p.operand(word{text: v, path: v}))
		}
	}
	if prog == "curl" && (hasFlag(seg.Flags, "remote-name") || hasFlag(seg.Flags, "remote-name-all")) {
		// curl -O saves under the URL's last path element.
		for _, o := range ops {
			for _, name := range fetchNames(o) {
				seg.Writes = append(seg.Writes, p.operand(word{text: name, path: name}))
			}
		}
	}
	if prog == "wget" && len(seg.Options["output-document"]) == 0 {
		dir := "."
		if d := seg.Options["directory-prefix"]; len(d) > 0 {
			dir = d[len(d)-1]
		}
		for _, o := range ops {
			for _, name := range fetchNames(o) {
				path := dir + "/" + name
				seg.Writes = append(seg.Writes, p.operand(word{text: path, path: path}))
			}
		}
	}
	// In the options' name order: reads are facts, and facts must not
	// depend on map order (a Command is a pure function of the text).
	var buf [8]string // most segments have few options: sorted on the stack
	names := buf[:0]
	for name := range seg.Options {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		vals := seg.Options[name]
		fileOpt := readsOption(p.entry(prog), name)
		for _, v := range vals {
			f, at := strings.CutPrefix(v, "@")
			switch {
			case at && f != "" && f != "-": // curl -d @file
			case fileOpt && v != "" && v != "-": // grep -f FILE, wc --files0-from=FILE
			case v != "" && !strings.ContainsAny(v, " \t\n") && nameClass(v) == ClassSecret:
				// Any option naming a secret file by its name reads it, as far
				// as anyone can tell (git blame --contents ~/.ssh/id_rsa).
			case strings.Contains(v, "/"):
				// --magic-file=/home/u/.ssh/id_rsa: a path-shaped option value
				// into a secret place is taken as read; programs echo files
				// they fail to parse. Other path-shaped values (-I/usr/include,
				// --out=/tmp/x) are left to the program's own rules.
				if op := p.operand(word{text: v, path: v}); secretPlace[op.Class] {
					seg.Reads = append(seg.Reads, op)
				}
				continue
			default:
				continue
			}
			seg.Reads = append(seg.Reads, p.operand(word{text: f, path: f}))
		}
	}
	p.redirectFacts(seg)
	if fetcherEntry(p.entry(prog)) {
		for _, w := range seg.Writes {
			if w.abs != "" {
				put(&p.download, w.abs, true)
			}
		}
	}
	if seg.PathKind == "relative" || seg.PathKind == "absolute" || seg.PathKind == "system" {
		if p.downloaded(p.env.absolute(seg.Path)) {
			seg.tag(TagRunsDownloaded)
		}
	}
	if prog == "chmod" {
		for _, o := range ops {
			if p.downloaded(o.abs) {
				seg.tag(TagRunsDownloaded)
			}
		}
	}
	p.recordCopies(seg)
	p.gitCloneTree(seg)
	if prog == "tee" {
		p.teeWritten(f, seg)
	}
}

// yqEnv matches yq (mikefarah) expressions that read the environment or
// other files: env(X), strenv(X), envsubst, load/load_str (jq filters are
// parsed instead: see jqCode).
var yqEnv = lazyre.New(`\$\s*ENV|\benv\b|strenv|envsubst|\$__|input_filename|\bgetpath\(\["?ENV|\bsearch\s*:|load_str|\bload\(`)

// yqLoad matches yq expressions that read files or evaluate data as an
// expression: load, load_str, load_xml … (mikefarah), eval, and jq's
// import, include, modulemeta and get_search_list (kislyuk).
var yqLoad = lazyre.New(`\bload(_[a-z0-9]+)?\b|\beval\b|\bimport\b|\binclude\b|\bmodulemeta\b|\bget_(search_list|prog_origin|jq_origin)\b`)

// intoDirWrites adds, for cp/mv/install/rsync SRC… DEST (or -t DEST), the
// paths written when DEST is a directory: DEST/basename(SRC), or DEST/SRC
// with --parents. A source that copies a directory's contents (x/.) writes
// names nobody knows beforehand.
func (p *walker) intoDirWrites(seg *Segment, ops []Operand) {
	dest := ""
	srcs := ops
	if t := seg.Options["target-directory"]; len(t) > 0 {
		dest = t[len(t)-1]
	} else if len(ops) >= 2 {
		dest, srcs = ops[len(ops)-1].Text, ops[:len(ops)-1]
	}
	if dest == "" || len(srcs) == 0 {
		return
	}
	if last := ops[len(ops)-1]; last.Dynamic && len(seg.Options["target-directory"]) == 0 {
		return
	}
	_, parents := seg.Options["parents"]
	parents = parents || hasFlag(seg.Flags, "parents") || hasFlag(seg.Flags, "R") && seg.Program == "rsync"
	for _, s := range srcs {
		name := baseName(s.Text)
		if s.Dynamic || name == "." || name == ".." || strings.HasSuffix(s.Text, "/") && seg.Program == "rsync" {
			seg.Writes = append(seg.Writes, Operand{Text: dest + "/*", Class: ClassDynamic, Dynamic: true})
			continue
		}
		target := dest + "/" + name
		if parents {
			target = dest + "/" + s.Text
		}
		seg.Writes = append(seg.Writes, p.operand(word{text: target, path: target}))
	}
}

// fetchNames are the file names a downloader (wget URL, curl -O URL) may
// save an operand under. A URL without a scheme is fetched over http; one
// without a path (wget x.sh fetches http://x.sh/) is saved as index.html,
// and is counted as the file it spells as well: that is the file the
// command means, and --content-disposition or --trust-server-names let the
// server name the file.
func fetchNames(o Operand) []string {
	u := o.Text
	if o.Dynamic || u == "" || strings.HasPrefix(u, "-") {
		return nil
	}
	if strings.Contains(u, "://") {
		if name := urlBase(u); name != "" {
			return []string{name}
		}
		return nil
	}
	if i := strings.IndexAny(u, "/?#"); i < 0 || u[i] != '/' {
		host := u
		if i >= 0 {
			host = u[:i]
		}
		if host == "" || host == "." || host == ".." {
			return nil
		}
		return []string{"index.html", host}
	}
	return []string{urlBase("http://" + u)}
}

// urlBase is the file name a downloader saves a URL under, or "".
func urlBase(u string) string {
	if !strings.Contains(u, "://") {
		return ""
	}
	u = u[strings.Index(u, "://")+3:]
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	i := strings.IndexByte(u, '/')
	if i < 0 {
		return "index.html"
	}
	b := baseName(u[i:])
	if b == "" || strings.HasSuffix(u, "/") {
		return "index.html"
	}
	return b
}

// redirectFacts adds redirect targets that are written to Writes.
func (p *walker) redirectFacts(seg *Segment) {
	for _, r := range seg.Redirects {
		if strings.Contains(r.Op, ">") {
			if r.Target.Class == ClassNull {
				continue
			}
			seg.Writes = append(seg.Writes, r.Target)
			if isFetcher(seg.Program) && r.Target.abs != "" && (r.Fd == "" || r.Fd == "1") {
				put(&p.download, r.Target.abs, true)
			}
			if r.Target.abs != "" && (r.Fd == "" || r.Fd == "1") && (r.Op == ">" || r.Op == ">>" || r.Op == ">|") {
				if text, ok := p.staticOutput(seg); ok {
					if r.Op == ">>" {
						text = p.written[r.Target.abs] + text
					}
					put(&p.written, r.Target.abs, text)
				} else {
					delete(p.written, r.Target.abs)
				}
			}
		}
	}
}

func (p *walker) tarWrites(seg *Segment) {
	_, create := seg.Options["create"]
	create = create || hasFlag(seg.Flags, "create") || hasFlag(seg.Flags, "append") || hasFlag(seg.Flags, "update")
	extract := hasFlag(seg.Flags, "extract")
	if create {
		for _, v := range seg.Options["file"] {
			if v != "-" {
				seg.Writes = append(seg.Writes, p.operand(word{text: v, path: v}))
			}
		}
	}
	if extract {
		dir := "."
		if d := seg.Options["directory"]; len(d) > 0 {
			dir = d[len(d)-1]
		}
		seg.Writes = append(seg.Writes, p.operand(word{text: dir, path: dir}))
		if hasFlag(seg.Flags, "absolute-names") {
			seg.Writes = append(seg.Writes, Operand{Text: "/", Path: "/", Class: ClassRoot})
		}
	}
}

// changeDir follows cd/pushd/popd for the segments after this one.
func (p *walker) changeDir(seg *Segment, operands []word) {
	switch {
	case seg.Program == "popd" || seg.Program == "pushd" && len(operands) == 0:
		p.env.setCwd("") // a directory of the stack
	case len(operands) == 0:
		if v, ok := p.vars.vars["HOME"]; ok && !v.Set {
			return // HOME unset: cd fails
		}
		p.env.setCwd(p.env.home)
		if h, ok := p.vars.str("HOME"); ok && strings.HasPrefix(h, "/") {
			p.env.setCwd(cleanPath(h))
		}
	case operands[0].dynamic && operands[0].path != "~" && !strings.HasPrefix(operands[0].path, "~/"):
		p.env.setCwd("")
	case operands[0].text == "-" && seg.Program != "pushd":
		// cd - goes to $OLDPWD when the command made it known.
		v, ok := p.vars.vars["OLDPWD"]
		switch {
		case ok && !v.Set:
			// OLDPWD not set: cd fails, the directory stays.
		case ok && v.Kind == expand.String && strings.HasPrefix(v.Str, "/") && !hasNUL(v.Str):
			p.env.setCwd(cleanPath(v.Str))
		default:
			p.env.setCwd("")
		}
	case operands[0].text == "-" || len(operands[0].text) > 1 && (operands[0].text[0] == '+' || operands[0].text[0] == '-'):
		p.env.setCwd("") // cd -, pushd +N / -N: a directory of the stack
	default:
		path := operands[0].path
		if path == "" {
			path = operands[0].text
		}
		if p.vars.pwdDirty && !strings.HasPrefix(path, "/") && !strings.HasPrefix(path, "~") {
			// After PWD=…, bash resolves a relative cd from that value.
			p.env.setCwd("")
			return
		}
		st := p.env.state()
		next := p.cdTo(path)
		if st.alt == "" || !cwdRelative(path) {
			p.env.setCwd(next)
			return
		}
		// A relative cd from either directory the shell may be in.
		p.env.setCwd(st.alt)
		alt := p.cdTo(path)
		p.env.setCwd(next)
		switch {
		case next == "" || alt == "":
			p.env.setCwd("")
		case alt != next:
			p.env.alt = alt
		}
	}
}

// cdTo returns the directory a cd to path leads to from the cwd, or ""
// when that is not known.
func (p *walker) cdTo(path string) string {
	if !p.env.sameCwd(path) {
		return "" // a link then ..: cd -L and cd -P land apart
	}
	dir := p.env.absolute(path)
	if t, ok := p.throughLinks(dir, true); ok {
		return t // ln -s / r && cd r/etc: the cwd is /etc
	}
	return dir
}

// SecretClasses are the path classes whose contents are secret: the one
// list of them (the Rego packs read it as data.rivumi.tables.sets.secret_classes,
// generated from it). Callers must not modify it.
var SecretClasses = []string{ClassSecret, ClassSSH, ClassCredentials}

// secretPlace holds SecretClasses.
var secretPlace = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range SecretClasses {
		m[c] = true
	}
	return m
}()
