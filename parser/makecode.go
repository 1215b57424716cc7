package parser

import "strings"

// make runs shell code from makefile text: recipe lines (after a tab, or
// after `;` on a rule line) through sh -c, and $(shell CMD) while it reads
// the text. The text is known when it comes on the command line (--eval,
// -E) or on stdin from a heredoc or a static pipe (make -f -).

// makeCode grades the makefile text make reads from its command line and
// marks a makefile read from stdin.
func (p *walker) makeCode(f *frame, seg *Segment, ws []word) {
	stdin := false
	for i := 1; i < len(ws); i++ {
		t := ws[i].text
		next := func() (word, bool) {
			if i+1 < len(ws) {
				i++
				return ws[i], true
			}
			return word{}, false
		}
		var w word
		var ok bool
		switch {
		case t == "--eval" || t == "-E":
			w, ok = next()
		case strings.HasPrefix(t, "--eval="):
			w, ok = word{text: t[len("--eval="):], dynamic: ws[i].dynamic}, true
		case t == "-f" || t == "--file" || t == "--makefile":
			if w, ok := next(); ok && isStdinName(w.text) {
				stdin = true
			}
			continue
		case t == "-f-" || t == "-f/dev/stdin" || t == "--file=-" || t == "--makefile=-" || t == "--file=/dev/stdin" || t == "--makefile=/dev/stdin":
			stdin = true
			continue
		default:
			continue
		}
		if !ok {
			continue
		}
		if w.dynamic {
			p.dynamicCodeIn(f, seg, "shell", w)
			continue
		}
		p.makeScripts(f, seg, w.text)
	}
	if !stdin {
		return
	}
	if f.hdoc != nil {
		if f.hdoc.fetch {
			seg.tag(TagFetchedCode)
		}
		if f.hdoc.dynamic {
			seg.tag(TagDynamicCode)
		}
		p.makeScripts(f, seg, f.hdoc.text)
		return
	}
	if f.stdin == "pipe" {
		seg.tag(TagStdinCode) // the pipeline's static source is read when complete
	}
}

func isStdinName(t string) bool { return t == "-" || t == "/dev/stdin" }

// makeScripts parses, as shell code seg runs, every command in makefile
// text: recipe lines and $(shell …) calls. make's own references ($(VAR),
// ${VAR}, $@ …) become a neutral word, so that a variable make knows is
// never read as an empty shell word; $$ is a $.
func (p *walker) makeScripts(f *frame, seg *Segment, text string) {
	for _, c := range makeCommands(text) {
		p.script(f, c, seg.Index, KindScript, false)
	}
}

// makeCommands returns the shell commands in makefile text.
func makeCommands(text string) []string {
	text = strings.ReplaceAll(text, "\\\n", " ")
	var out []string
	define := false
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) > 0 && (f[0] == "define" || f[0] == "endef") {
			// define NAME … endef: a variable's text, run only where
			// it is used (not followed).
			define = f[0] == "define"
			continue
		}
		if define {
			continue
		}
		for _, c := range makeShellCalls(line) {
			out = append(out, makeNeutral(c))
		}
		switch {
		case strings.HasPrefix(line, "\t"):
			out = append(out, makeNeutral(strings.TrimLeft(line[1:], "@-+ \t")))
		case !strings.HasPrefix(line, "#"):
			colon := strings.IndexByte(line, ':')
			eq := strings.IndexByte(line, '=')
			if colon > 0 && (eq < 0 || eq > colon) {
				if semi := strings.IndexByte(line[colon:], ';'); semi >= 0 {
					out = append(out, makeNeutral(strings.TrimLeft(line[colon+semi+1:], "@-+ \t")))
				}
			}
		}
	}
	return out
}

// makeShellCalls returns the commands of the $(shell …) and ${shell …}
// calls in line (balanced parentheses or braces).
func makeShellCalls(line string) []string {
	var out []string
	for i := 0; i+8 < len(line); i++ {
		if line[i] != '$' || line[i+1] != '(' && line[i+1] != '{' || !strings.HasPrefix(line[i+2:], "shell") ||
			line[i+7] != ' ' && line[i+7] != '\t' {
			continue
		}
		open, end := line[i+1], byte(')')
		if open == '{' {
			end = '}'
		}
		depth := 0
		for j := i + 1; j < len(line); j++ {
			switch line[j] {
			case open:
				depth++
			case end:
				depth--
			}
			if depth == 0 {
				out = append(out, strings.TrimSpace(line[i+8:j]))
				break
			}
		}
	}
	return out
}

// makeNeutral replaces make's references in a command with a neutral word
// and $$ with $.
func makeNeutral(c string) string {
	var b strings.Builder
	for i := 0; i < len(c); i++ {
		if c[i] != '$' || i+1 >= len(c) {
			b.WriteByte(c[i])
			continue
		}
		switch n := c[i+1]; n {
		case '$':
			b.WriteByte('$')
			i++
		case '(', '{':
			end := byte(')')
			if n == '{' {
				end = '}'
			}
			depth, j := 0, i+1
			for ; j < len(c); j++ {
				if c[j] == n {
					depth++
				} else if c[j] == end {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			b.WriteString("MAKEVAR")
			i = j
		default:
			b.WriteString("MAKEVAR")
			i++
		}
	}
	return b.String()
}
