package parser

import "strings"

// GNU sed's s///e flag runs the pattern space, after the substitution, as
// a shell command. The command is known when the script is one s command
// whose regex matches every whole line (.*, ^.*$ …) or only its start (^),
// with a replacement of literals and & (the line), and the input lines are
// known.

// sedExecSubst reads such a script. It returns the command for one input
// line, and whether the command depends on the line.
func sedExecSubst(script string) (run func(line string) string, usesLine bool, ok bool) {
	s := strings.TrimSpace(script)
	if len(s) < 4 || s[0] != 's' || s[1] == '\\' || s[1] == '\n' || s[1] == ' ' {
		return nil, false, false
	}
	d := s[1]
	var parts []string
	var cur strings.Builder
	i := 2
	for ; i < len(s) && len(parts) < 2; i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			cur.WriteByte(c)
			cur.WriteByte(s[i+1])
			i++
		case c == d:
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if len(parts) < 2 {
		return nil, false, false
	}
	flags := s[i:]
	if !strings.Contains(flags, "e") || strings.Trim(flags, "gpeIiMm0123456789") != "" {
		return nil, false, false
	}
	re, repl := parts[0], parts[1]
	whole := false
	switch re {
	case ".*", "^.*", "^.*$", ".*$":
		whole = true
	case "^":
	default:
		return nil, false, false
	}
	// The replacement: literals, & and \& \\ \<delim> \n; anything else
	// (\1, \U, \x41 …) is not read.
	const amp = "\x00"
	var b strings.Builder
	for k := 0; k < len(repl); k++ {
		c := repl[k]
		switch {
		case c == '&':
			b.WriteString(amp)
		case c == '\\' && k+1 < len(repl):
			k++
			switch n := repl[k]; {
			case n == '&' || n == '\\' || n == d:
				b.WriteByte(n)
			case n == 'n':
				b.WriteByte('\n')
			default:
				return nil, false, false
			}
		case c == '\x00':
			return nil, false, false
		default:
			b.WriteByte(c)
		}
	}
	tmpl := b.String()
	if whole {
		return func(line string) string { return strings.ReplaceAll(tmpl, amp, line) }, strings.Contains(tmpl, amp), true
	}
	// ^ matches the empty start: & is empty, the line follows.
	t := strings.ReplaceAll(tmpl, amp, "")
	return func(line string) string { return t + line }, true, true
}

// sedExecLines grades, as shell code seg runs, what s///e runs for each of
// the known input lines of text.
func (p *walker) sedExecLines(f *frame, seg *Segment, text string) {
	var scripts []Code
	for _, c := range seg.Code {
		if c.Lang == "sed" {
			scripts = append(scripts, c)
		}
	}
	if len(scripts) != 1 {
		return // another script may change the line first
	}
	for _, c := range scripts {
		if c.Dynamic {
			continue
		}
		run, _, ok := sedExecSubst(c.Text)
		if !ok {
			continue
		}
		for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			p.script(f, run(line), seg.Index, KindEmbedded, false)
		}
	}
}
