package parser

import (
	"path"
	"slices"
	"strings"

	"github.com/rivumi/rivumi/codescan"
)

// jqShort are jq's one-letter options by their long names (jq 1.8 main.c;
// jq 1.6 knows the same letters).
var jqShort = map[byte]string{
	's': "slurp", 'r': "raw-output", 'j': "join-output", 'c': "compact-output", 'C': "color-output",
	'M': "monochrome-output", 'a': "ascii-output", 'S': "sort-keys", 'R': "raw-input", 'n': "null-input",
	'f': "from-file", 'L': "library-path", 'b': "binary", 'e': "exit-status", 'h': "help", 'V': "version",
}

// jqTwoArgs are jq's long options that take two words (NAME VALUE or NAME
// FILE); jqFileArgs are those whose second word is a file jq reads.
var (
	jqTwoArgs  = map[string]bool{"arg": true, "argjson": true, "rawfile": true, "slurpfile": true, "argfile": true}
	jqFileArgs = map[string]bool{"rawfile": true, "slurpfile": true, "argfile": true}
)

// jqCode reads the command line of jq (and of gojq and jaq, which follow
// it) the way jq's main.c does, replacing the generic Flags, Options and
// Operands: options anywhere until "--" (an option is "-" then a letter, or
// "--"); short options bundled (-nr), -L taking the rest of its word or the
// next; --arg/--argjson NAME VALUE, --rawfile/--slurpfile/--argfile NAME
// FILE and --indent N taking their words; the first other word is the
// filter (or, with -f, the file holding it); later words are input files,
// or strings after --args/--jsonargs. Flags are reported by long name.
// The filter is classified by [codescan.Jq]: outside the subset it is
// code-unsafe; reading the environment is secret-env; FILE of --rawfile and
// the like, the filter file and the files an import or include may load
// are reads.
func (p *walker) jqCode(f *frame, seg *Segment, ws []word) {
	seg.Flags, seg.Options, seg.Operands = nil, map[string][]string{}, nil
	var (
		filter   *word
		fromFile bool
		argsMode bool
		done     bool
		inputs   []word
	)
	flag := func(name string) { seg.Flags = append(seg.Flags, name) }
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		t := w.text
		optish := !done && !w.dynamic && len(t) > 1 && t[0] == '-' && (t[1] == '-' || isLetter(t[1]))
		switch {
		case !done && !w.dynamic && t == "--":
			done = true
		case !optish:
			switch {
			case filter == nil:
				filter = &ws[i]
			case argsMode:
				// --args/--jsonargs: strings for $ARGS.positional, not files.
			default:
				inputs = append(inputs, w)
			}
		case strings.HasPrefix(t, "--"):
			name := t[2:]
			flag(name)
			switch {
			case jqTwoArgs[name] && i+2 < len(ws):
				if jqFileArgs[name] {
					seg.Options[name] = append(seg.Options[name], seg.optionValue(name, ws[i+2]))
				}
				i += 2
			case name == "indent" && i+1 < len(ws):
				i++
			case name == "library-path" && i+1 < len(ws):
				i++
				seg.Options[name] = append(seg.Options[name], seg.optionValue(name, ws[i]))
			case name == "from-file":
				fromFile = true
			case name == "args" || name == "jsonargs":
				argsMode = true
			case name == "run-tests":
				// jq --run-tests [FILE]: jq programs from a file.
				seg.Code = append(seg.Code, Code{Lang: "jq", Text: strings.Join(argvText(ws[i:]), " ")})
				seg.tag(TagScriptFile)
				seg.tag(TagCodeUnsafe)
				for _, r := range ws[i+1:] {
					seg.Options["from-file"] = append(seg.Options["from-file"], seg.optionValue("from-file", r))
				}
				i = len(ws)
			}
		default:
			for j := 1; j < len(t); j++ {
				name, ok := jqShort[t[j]]
				if !ok {
					flag(t[j : j+1]) // jq stops: unknown option
					continue
				}
				flag(name)
				switch name {
				case "from-file":
					fromFile = true
				case "library-path":
					dir := t[j+1:]
					if dir == "" && i+1 < len(ws) {
						i++
						dir = seg.optionValue(name, ws[i])
					}
					if dir != "" {
						seg.Options[name] = append(seg.Options[name], dir)
					}
					j = len(t)
				}
			}
		}
	}
	saved := p.env.state()
	switch seg.segCwdAbs {
	case "":
	case "?":
		p.env.setCwd("")
	default:
		p.env.setCwd(seg.segCwdAbs)
	}
	defer p.env.setState(saved)
	for _, w := range inputs {
		seg.Operands = append(seg.Operands, p.operand(w))
	}
	switch {
	case filter == nil && seg.HasTag(TagAppendedArgs):
		// xargs jq -n: the first word appended at run time is the filter.
		seg.Code = append(seg.Code, Code{Lang: "jq", Text: "", Dynamic: true})
		seg.tag(TagDynamicCode)
	case filter == nil:
		// jq with no filter is jq '.'.
	case fromFile:
		seg.Options["from-file"] = append(seg.Options["from-file"], seg.optionValue("from-file", *filter))
		seg.Code = append(seg.Code, Code{Lang: "jq", Text: "-f " + filter.text})
		seg.tag(TagScriptFile)
		seg.tag(TagCodeUnsafe)
	case filter.dynamic || filter.glob && globCanMatch(filter.text):
		// An unquoted .a? or .[0] is a pattern bash replaces with the
		// names of matching files (.ab, .0, or a file named '$ENV'
		// matched by '$EN'?): the filter is not known.
		p.dynamicCode(seg, "jq", *filter)
	default:
		r := codescan.Jq(filter.text)
		if under(p.env.home, p.env.workspace) {
			// jq imports $HOME/.jq into every program, and its definitions
			// shadow the builtins (def keys: $ENV;): with the home inside
			// the workspace, that file is the repository's.
			r.Safe, r.Reason = false, "~/.jq is a workspace file"
		}
		seg.Code = append(seg.Code, Code{Lang: "jq", Text: filter.text, Safe: r.Safe})
		if !r.Safe {
			seg.tag(TagCodeUnsafe)
		}
		if r.Env {
			seg.tag(TagSecretEnv) // $ENV, env: the environment, tokens included
		}
		p.jqModuleReads(seg, r)
	}
}

// jqModuleReads adds, for each import or include, the files jq may load:
// PATH.json (data) and PATH.jq (code), also as PATH/NAME.jq, from the
// directory of the program (the cwd), ~/.jq, the -L directories and the
// search directories of the directive's metadata.
func (p *walker) jqModuleReads(seg *Segment, r codescan.JqResult) {
	if len(r.Modules) == 0 {
		return
	}
	dirs := append([]string{".", "~/.jq"}, seg.Options["library-path"]...)
	dirs = append(dirs, r.Search...)
	for _, m := range r.Modules {
		for _, d := range dirs {
			d = strings.ReplaceAll(d, "$ORIGIN", "/usr/bin")
			for _, c := range []string{m + ".json", m + ".jq", m + "/" + path.Base(m) + ".jq"} {
				c = d + "/" + c
				seg.Reads = append(seg.Reads, p.operand(word{text: c, path: c}))
			}
		}
	}
}

// yqWords are mikefarah yq's subcommands that take an expression.
var yqWords = map[string]bool{"e": true, "eval": true, "ea": true, "eval-all": true}

// yqExpression finds yq's expression (--expression, or the first operand
// after an optional eval/e/eval-all/ea) and judges it: in jq's safe subset
// it is plain data for kislyuk's yq (which hands it to jq) and for
// mikefarah's (whose builtins of those names read nothing else); otherwise
// the regular expressions yqEnv and yqLoad decide (secret-env,
// code-unsafe), as mikefarah's language is not parsed. The expression is
// dropped from the operands, which it is not; the file operands are
// returned.
func (p *walker) yqExpression(seg *Segment, ops []Operand) []Operand {
	i := 0
	if len(ops) > 0 && !ops[0].Dynamic && yqWords[ops[0].Text] {
		i = 1
	}
	exprs := seg.Options["expression"]
	if len(exprs) == 0 && len(seg.Options["from-file"]) == 0 && i < len(ops) {
		if ops[i].Dynamic {
			return ops
		}
		exprs = []string{ops[i].Text}
		ops = slices.Clone(ops[i+1:])
		seg.Operands = ops
	} else {
		ops = ops[i:]
		seg.Operands = ops
	}
	for _, e := range exprs {
		r := codescan.Jq(e)
		if r.Safe {
			continue
		}
		if yqEnv().MatchString(e) || r.Env {
			seg.tag(TagSecretEnv) // env(X), strenv(X), envsubst, $ENV
		}
		if yqLoad().MatchString(e) || len(r.Modules) > 0 {
			seg.tag(TagCodeUnsafe) // load("~/.ssh/id_rsa"), eval(.x), import
		}
	}
	return ops
}

// globCanMatch reports whether bash would expand pattern (after quote
// removal) as a glob: it has * or ?, or a bracket expression that closes
// ([0], [!a], []x]). An unclosed one ('.[]', '.items[].name') is literal.
func globCanMatch(pattern string) bool {
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '*', '?':
			return true
		case '[':
			j := i + 1
			if j < len(pattern) && (pattern[j] == '!' || pattern[j] == '^') {
				j++
			}
			if j < len(pattern) && pattern[j] == ']' {
				j++ // a leading ] is part of the set
			}
			if strings.IndexByte(pattern[j:], ']') >= 0 {
				return true
			}
		}
	}
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func argvText(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.text
	}
	return out
}
