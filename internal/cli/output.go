package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fatih/color"
	"golang.org/x/term"

	"github.com/rivumi/rivumi/engine"
)

// useColor decides colour for one stream: on with FORCE_COLOR, off with
// NO_COLOR, TERM=dumb or when w is not a terminal.
func useColor(w io.Writer) bool {
	if os.Getenv("FORCE_COLOR") != "" {
		return true
	}
	if _, no := os.LookupEnv("NO_COLOR"); no || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

type palette struct{ allow, ask, deny, dim, bold *color.Color }

func newPalette(w io.Writer) palette {
	p := palette{
		allow: color.New(color.FgGreen, color.Bold), ask: color.New(color.FgYellow, color.Bold),
		deny: color.New(color.FgRed, color.Bold), dim: color.New(color.Faint), bold: color.New(color.Bold),
	}
	on := useColor(w)
	for _, c := range []*color.Color{p.allow, p.ask, p.deny, p.dim, p.bold} {
		if on {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	return p
}

func (p palette) decision(d engine.Decision) string {
	switch d {
	case engine.Allow:
		return p.allow.Sprint("allow")
	case engine.Ask:
		return p.ask.Sprint("ask")
	}
	return p.deny.Sprint("deny")
}

func printVerdict(w io.Writer, command string, v engine.Verdict) {
	p := newPalette(w)
	fmt.Fprintf(w, "%s  %s\n", p.decision(v.Decision), command)
	for _, r := range v.Reasons {
		seg := ""
		if r.Segment >= 0 && r.Text != "" && r.Text != command {
			seg = p.dim.Sprintf(" [segment %d: %s]", r.Segment, r.Text)
		}
		fmt.Fprintf(w, "  %s %s (%s)%s\n", p.bold.Sprint(r.Rule), r.Title, r.Layer, seg)
		if r.Justification != "" && r.Justification != r.Title {
			fmt.Fprintf(w, "    %s\n", r.Justification)
		}
		if r.Suggest != "" {
			fmt.Fprintf(w, "    to allow it, add a rule such as:\n%s\n", indent(r.Suggest, "      "))
		}
	}
	fmt.Fprintf(w, "%s\n", p.dim.Sprintf("policy %s", v.Policy))
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}

func printExplanation(w io.Writer, x engine.Explanation) {
	p := newPalette(w)
	c := x.Command
	fmt.Fprintf(w, "command: %s\nshell: %s\n", c.Text, c.Shell)
	if c.Shape.Error != nil {
		fmt.Fprintf(w, "parse error: %s (incomplete: %v)\n", c.Shape.Error.Error(), c.Shape.Error.Incomplete)
	}
	if c.Shape.Limit != "" {
		fmt.Fprintf(w, "limit hit: %s\n", c.Shape.Limit)
	}
	if len(c.Shape.Operators) > 0 {
		fmt.Fprintf(w, "operators: %s\n", strings.Join(c.Shape.Operators, " "))
	}
	for i, s := range c.Segments {
		d := ""
		if i < len(x.Decisions) {
			d = p.decision(x.Decisions[i])
		}
		fmt.Fprintf(w, "\nsegment %d %s (%s, depth %d, parent %d)\n", i, d, s.Kind, s.Depth, s.Parent)
		fmt.Fprintf(w, "  argv:      %q\n", s.Argv)
		fmt.Fprintf(w, "  program:   %s (%s %s)\n", s.Program, s.PathKind, s.Path)
		line := func(name string, v any, show bool) {
			if show {
				fmt.Fprintf(w, "  %-10s %v\n", name+":", v)
			}
		}
		var wr []string
		for _, x := range s.Wrappers {
			wr = append(wr, strings.TrimSpace(x.Name+" "+strings.Join(x.Args, " ")))
		}
		line("wrappers", strings.Join(wr, " | "), len(wr) > 0)
		line("subcommand", s.Subcommand, s.Subcommand != "")
		line("flags", strings.Join(s.Flags, " "), len(s.Flags) > 0)
		for _, o := range s.Operands {
			line("operand", fmt.Sprintf("%s [%s %s]", o.Text, o.Class, o.Path), true)
		}
		for _, o := range s.Writes {
			line("writes", fmt.Sprintf("%s [%s %s]", o.Text, o.Class, o.Path), true)
		}
		for _, a := range s.Assigns {
			line("assign", a.Name+"="+a.Value, true)
		}
		for _, cd := range s.Code {
			line("code", fmt.Sprintf("%s safe=%v: %s", cd.Lang, cd.Safe, cd.Text), true)
		}
		line("cwd", s.Cwd, s.CwdKnown)
		line("stdin", s.Stdin, s.Stdin != "")
		line("tags", strings.Join(s.Tags, " "), len(s.Tags) > 0)
		for _, h := range x.Hits {
			if h.Segment == i {
				fmt.Fprintf(w, "  hit: %s %s %s: %s\n", h.Layer, p.decision(h.Decision), h.Rule, h.Title)
			}
		}
	}
	fmt.Fprintln(w)
	printVerdict(w, c.Text, x.Verdict)
}
