package parser

import "strings"

// crontab installs a table whose entries cron runs later through sh:
// `echo '* * * * * rm -rf /' | crontab -`, `crontab <<< '@reboot CMD'`,
// `(crontab -l; echo '0 * * * * CMD') | crontab -`, `crontab f` of a file
// written earlier on the line. The command of every entry known from the
// text is graded as shell code below the segment (what the rest of the
// table holds is unknown and stays so; installing a table asks in any
// case).

// crontabInstalls reports a crontab that reads a new table (from stdin
// when stdin is true, else from its operand file), not -l, -r or -e.
func crontabInstalls(seg *Segment) (installs, stdin bool) {
	if seg.Program != "crontab" {
		return false, false
	}
	for _, f := range seg.Flags {
		switch f {
		case "l", "r", "e", "i":
			return false, false
		}
	}
	ops := seg.Operands // -u USER is an option's value (the registry's entry)
	return true, len(ops) == 0 || len(ops) == 1 && ops[0].Text == "-"
}

// crontabCode grades the commands of the entries in table text.
func (p *walker) crontabCode(f *frame, seg *Segment, text string) {
	for _, line := range strings.Split(text, "\n") {
		if cmd, ok := cronCommand(line); ok {
			p.script(f, cmd, seg.Index, KindScript, false)
		}
	}
}

// cronCommand returns the command of a crontab entry: after five time
// fields, or after an @keyword; up to the first unescaped %, which starts
// the command's standard input (an escaped \% is a %). Comments, blank
// lines and NAME=value settings have none.
func cronCommand(line string) (string, bool) {
	l := strings.TrimLeft(line, " \t")
	if l == "" || l[0] == '#' {
		return "", false
	}
	fields := 5
	if l[0] == '@' {
		fields = 1
	} else if eq := strings.IndexByte(l, '='); eq > 0 && !strings.ContainsAny(l[:eq], " \t") {
		return "", false // SHELL=/bin/bash, MAILTO=…
	}
	rest := l
	for range fields {
		i := strings.IndexAny(rest, " \t")
		if i < 0 {
			return "", false
		}
		rest = strings.TrimLeft(rest[i:], " \t")
	}
	var b strings.Builder
	for i := 0; i < len(rest); i++ {
		if rest[i] == '\\' && i+1 < len(rest) && rest[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		if rest[i] == '%' {
			break
		}
		b.WriteByte(rest[i])
	}
	cmd := strings.TrimSpace(b.String())
	return cmd, cmd != ""
}

// groupOutputs returns the known outputs of the top segments of a
// pipeline stage that is a group or subshell ({ crontab -l; echo LINE; }),
// the unknown ones left out.
// A known output that does not end a line would join the next one: what
// follows it is left out too.
func (p *walker) groupOutputs(idxs []int) []string {
	var out []string
	for _, j := range idxs {
		text, ok := p.staticOutput(p.cmd.Segments[j])
		if !ok {
			continue
		}
		if !strings.HasSuffix(text, "\n") {
			break
		}
		out = append(out, text)
	}
	return out
}
