package parser

import (
	"io"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Command substitutions of pure programs: $(printf %s rm), $(echo /),
// `dirname /etc/x`, "$(basename /bin/rm)". When the substituted command is
// one simple command whose words are known, whose program is echo, printf
// (bash's builtins), dirname or basename (GNU coreutils), and whose output
// is a function of those words alone, the output is computed here exactly
// as the program writes it; the word is then expanded as bash expands it
// (trailing newlines removed, split and globbed when unquoted) by mvdan's
// expand, which calls back for the output. Anything else — an option not
// modelled, an escape, a conversion other than %s, a redirect, a pipe, a
// function that may shadow the program, a changed PATH — leaves the
// substitution unknown, as before. The substitution is still walked as a
// graded segment of its own: knowing its output does not skip it.

// pureSubst returns the output of the command substituted by x when it is
// a pure program of known words (see above), and records it for the
// expansion (substFn). It is called by parts, within evaluable.
func (s *varState) pureSubst(x *syntax.CmdSubst, shell string) (string, bool) {
	if !s.substOK || shell == "zsh" || x.TempFile || x.ReplyVar || len(x.Stmts) != 1 {
		return "", false
	}
	st := x.Stmts[0]
	if st.Negated || st.Background || st.Coprocess || st.Disown || len(st.Redirs) > 0 {
		return "", false
	}
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 || len(c.Args) == 0 || !pureName(c.Args[0]) {
		return "", false
	}
	var argv []string
	for _, w := range c.Args {
		fields, ok := s.substFields(w, shell)
		if !ok {
			return "", false
		}
		argv = append(argv, fields...)
	}
	out, ok := pureOutput(argv)
	if !ok || strings.IndexByte(out, 0) >= 0 || len(out) > maxValue {
		return "", false // bash drops a NUL with a warning: not modelled
	}
	if s.budget -= len(out); s.budget < 0 {
		return "", false
	}
	if s.substOut == nil {
		s.substOut = map[*syntax.CmdSubst]string{}
	}
	s.substOut[x] = out
	return out, true
}

// substFields expands one word of a substituted command as bash passes it
// to the program: split, and given up when bash would glob it (the result
// would depend on the disk).
func (s *varState) substFields(w *syntax.Word, shell string) ([]string, bool) {
	need := s.needIFS
	s.needIFS = false
	defer func() { s.needIFS = need }()
	if !s.parts(w.Parts, evalCtx{}, shell, true, new(bool)) {
		return nil, false
	}
	if s.needIFS {
		ifs, ok := s.vars["IFS"]
		if !ok || ifs.Set && strings.Trim(ifs.Str, " \t\n") != "" && !s.plainSplit(w, ifs.Str) {
			return nil, false
		}
	}
	fields, err := expand.Fields(s.config(), w)
	if err != nil {
		return nil, false
	}
	if unquotedGlobRisk(w) {
		for _, f := range fields {
			if hasGlob(f, shell) {
				return nil, false
			}
		}
	}
	return fields, true
}

// config is the expand.Config over the state: the known variables, and the
// outputs pureSubst recorded for the substitutions of the word.
func (s *varState) config() *expand.Config {
	cfg := &expand.Config{Env: evalEnv{s}}
	if len(s.substOut) > 0 {
		cfg.CmdSubst = s.substFn
	}
	return cfg
}

// substFn writes a recorded output; a substitution not recorded is an
// error, so that the word is not expanded.
func (s *varState) substFn(w io.Writer, x *syntax.CmdSubst) error {
	out, ok := s.substOut[x]
	if !ok {
		return expand.UnexpectedCommandError{Node: x}
	}
	_, err := io.WriteString(w, out)
	return err
}

// hasCmdSubst reports a command substitution among the word's parts or in
// its double quotes (where parts accepts one).
func hasCmdSubst(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.CmdSubst:
			return true
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if _, ok := q.(*syntax.CmdSubst); ok {
					return true
				}
			}
		}
	}
	return false
}

// pureName reports a program word that may name a pure program (or
// command before one; not builtin, which dash, the sh of an inline sh -c
// script here, does not have): a literal other than those gives up
// before any word is expanded; other words are expanded and checked.
func pureName(w *syntax.Word) bool {
	l := w.Lit()
	if l == "" {
		return true
	}
	switch strings.ReplaceAll(l, `\`, "") {
	case "echo", "printf", "dirname", "basename", "command":
		return true
	}
	return false
}

// pureOutput is what argv writes on its standard output when its program
// is one of the pure ones and every option and escape in it is modelled.
func pureOutput(argv []string) (string, bool) {
	prog, args := argv[0], argv[1:]
	switch prog {
	case "command":
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			return "", false
		}
		prog, args = args[0], args[1:]
	}
	switch prog {
	case "echo":
		return echoOutput(args)
	case "printf":
		return printfOutput(args)
	case "dirname":
		return dirnameOutput(args)
	case "basename":
		return basenameOutput(args)
	}
	return "", false
}

// echoOutput is echo where bash's builtin (xpg_echo off) and dash's
// agree, since the shell that runs an inline sh -c script may be either: a
// first word -n drops the newline; another option-like word in its place
// (-e, -E, -ne …: bash takes them, dash prints them) or a backslash
// anywhere (dash reads escapes) gives up.
func echoOutput(args []string) (string, bool) {
	newline := true
	if len(args) > 0 && args[0] == "-n" {
		newline = false
		args = args[1:]
	}
	if len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
		return "", false
	}
	out := strings.Join(args, " ")
	if strings.IndexByte(out, '\\') >= 0 {
		return "", false
	}
	if newline {
		out += "\n"
	}
	return out, true
}

// printfOutput is printf (bash's builtin and dash's agree on this part)
// for formats made of text, the escapes \\ \a \b \f \n \r \t \v and \NNN
// (octal), %% and %s without flags, width or precision; the format is
// reused while arguments are left. -v (an assignment) and anything else:
// given up.
func printfOutput(args []string) (string, bool) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && args[0] != "-" {
		return "", false
	}
	format, args := args[0], args[1:]
	var b strings.Builder
	for {
		used := 0
		for i := 0; i < len(format); i++ {
			c := format[i]
			switch c {
			case '\\':
				if i+1 >= len(format) {
					return "", false
				}
				i++
				e := format[i]
				switch e {
				case '\\':
					b.WriteByte(e)
				case 'a':
					b.WriteByte('\a')
				case 'b':
					b.WriteByte('\b')
				case 'f':
					b.WriteByte('\f')
				case 'n':
					b.WriteByte('\n')
				case 'r':
					b.WriteByte('\r')
				case 't':
					b.WriteByte('\t')
				case 'v':
					b.WriteByte('\v')
				case '0', '1', '2', '3', '4', '5', '6', '7':
					n := 0
					j := i
					for ; j < len(format) && j < i+3 && format[j] >= '0' && format[j] <= '7'; j++ {
						n = n*8 + int(format[j]-'0')
					}
					if n == 0 || n > 0xff {
						return "", false
					}
					b.WriteByte(byte(n))
					i = j - 1
				default:
					return "", false // \c, \x, \u, \e, \" (dash keeps the backslash) and unknown ones
				}
			case '%':
				if i+1 >= len(format) {
					return "", false
				}
				i++
				switch format[i] {
				case '%':
					b.WriteByte('%')
				case 's':
					if used < len(args) {
						b.WriteString(args[used])
					}
					used++
				default:
					return "", false
				}
			default:
				b.WriteByte(c)
			}
			if b.Len() > maxValue {
				return "", false
			}
		}
		if used == 0 || used >= len(args) {
			break
		}
		args = args[used:]
	}
	return b.String(), true
}

// gnuOperands returns the operands of a coreutils program that takes no
// option this evaluator models: GNU getopt takes options anywhere before
// --, so any other word starting with - gives up.
func gnuOperands(args []string) ([]string, bool) {
	if len(args) > 0 && args[0] == "--" {
		return args[1:], true
	}
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' {
			return nil, false
		}
	}
	return args, true
}

// dirnameOutput is GNU dirname: each operand's directory on its own line.
func dirnameOutput(args []string) (string, bool) {
	ops, ok := gnuOperands(args)
	if !ok || len(ops) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, op := range ops {
		if n := dirLen(op); n == 0 {
			b.WriteByte('.')
		} else {
			b.WriteString(op[:n])
		}
		b.WriteByte('\n')
	}
	return b.String(), true
}

// basenameOutput is GNU basename NAME [SUFFIX].
func basenameOutput(args []string) (string, bool) {
	ops, ok := gnuOperands(args)
	if !ok || len(ops) == 0 || len(ops) > 2 {
		return "", false
	}
	name := gnuBaseName(ops[0])
	if len(ops) == 2 && !strings.HasPrefix(name, "/") {
		if suf := ops[1]; len(suf) < len(name) && strings.HasSuffix(name, suf) {
			name = name[:len(name)-len(suf)]
		}
	}
	return name + "\n", true
}

// lastComponent is gnulib's last_component: the start of the last file
// name component, trailing slashes ignored.
func lastComponent(name string) int {
	base := 0
	for base < len(name) && name[base] == '/' {
		base++
	}
	slash := false
	for p := base; p < len(name); p++ {
		if name[p] == '/' {
			slash = true
		} else if slash {
			base, slash = p, false
		}
	}
	return base
}

// dirLen is gnulib's dir_len: the length of name's directory part, 0 for
// none.
func dirLen(name string) int {
	prefix := 0
	if strings.HasPrefix(name, "/") {
		prefix = 1
	}
	n := lastComponent(name)
	for ; prefix < n; n-- {
		if name[n-1] != '/' {
			break
		}
	}
	return n
}

// baseLen is gnulib's base_len: the length without trailing slashes,
// keeping one.
func baseLen(name string) int {
	n := len(name)
	for n > 1 && name[n-1] == '/' {
		n--
	}
	return n
}

// gnuBaseName is coreutils' base_name followed by strip_trailing_slashes.
func gnuBaseName(name string) string {
	base := name[lastComponent(name):]
	if base == "" {
		return name[:baseLen(name)] // all slashes, or empty
	}
	return base[:baseLen(base)]
}
