package cli

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func init() {
	register("man", "write manual pages (roff): rivumi(1) and one per command", runMan)
	describe("man", "[--dir DIR]", manHelp)
}

const manHelp = `Writes the manual pages: rivumi.1 (the commands and the exit codes) and
one page per command, rivumi-policy-eval.1 and so on, made from the
command tree that --help shows (description, flags, examples), so that they
say what the binary does. Install them where man looks (man -w shows the path).`

func runMan(_ context.Context, stdio Stdio, args []string) error {
	fs := newFlags("man", stdio)
	dir := fs.String("dir", ".", "directory the pages are written to (created if missing)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return exitf(ExitError, "man: no operands (the pages go to --dir)")
	}
	pages, err := manPages(stdio.cmd.Root(), stdio)
	if err != nil {
		return exitf(ExitInternal, "man: %v", err)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return exitf(ExitError, "man: %v", err)
	}
	names := make([]string, 0, len(pages))
	for n := range pages {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(*dir, n), []byte(pages[n]), 0o644); err != nil {
			return exitf(ExitError, "man: %v", err)
		}
	}
	fmt.Fprintf(stdio.Out, "wrote %d pages to %s\n", len(names), *dir)
	return nil
}

// manCommands lists the commands of the tree under root that get a page:
// the runnable ones without subcommands (cobra's completion scripts
// included), but help.
func manCommands(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			switch {
			case !s.IsAvailableCommand() || s.Name() == "help":
			case s.HasSubCommands():
				walk(s)
			case s.Runnable():
				out = append(out, s)
			}
		}
	}
	walk(root)
	return out
}

// manPages renders every page of the tree under root, by file name.
func manPages(root *cobra.Command, stdio Stdio) (map[string]string, error) {
	version := moduleVersion()
	pages := map[string]string{}
	cmds := manCommands(root)
	for _, c := range cmds {
		if err := declareFlags(c, stdio); err != nil {
			return nil, err
		}
		pages[manName(c)+".1"] = commandPage(c, version)
	}
	pages["rivumi.1"] = mainPage(cmds, version)
	return pages, nil
}

// manName is a command's page name: rivumi-policy-eval.
func manName(c *cobra.Command) string { return strings.ReplaceAll(c.CommandPath(), " ", "-") }

// commandPage renders one command's help as a page: its usage line is the
// synopsis, its long text the description, its flags the options.
func commandPage(c *cobra.Command, version string) string {
	var b strings.Builder
	name := manName(c)
	th(&b, name, version)
	b.WriteString(".SH NAME\n" + roffText(name) + " \\- " + roffText(c.Short) + "\n")
	b.WriteString(".SH SYNOPSIS\n.nf\n" + roffText(c.UseLine()) + "\n.fi\n")
	if d := strings.TrimSpace(c.Long); d != "" {
		b.WriteString(".SH DESCRIPTION\n")
		paragraphs(&b, d)
	}
	var opts strings.Builder
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		arg, usage := pflag.UnquoteUsage(f)
		spelling := "--" + f.Name
		if f.Shorthand != "" {
			spelling = "-" + f.Shorthand + ", " + spelling
		}
		opts.WriteString(".TP\n\\fB" + roffText(spelling) + "\\fR")
		if arg != "" {
			opts.WriteString(" \\fI" + roffText(arg) + "\\fR")
		}
		opts.WriteString("\n" + roffText(usage))
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" && f.DefValue != "0" {
			opts.WriteString(" (default " + roffText(f.DefValue) + ")")
		}
		opts.WriteString("\n")
	})
	if opts.Len() > 0 {
		b.WriteString(".SH OPTIONS\n" + opts.String())
	}
	if e := strings.Trim(c.Example, "\n"); e != "" {
		b.WriteString(".SH EXAMPLES\n.nf\n")
		for _, l := range strings.Split(e, "\n") {
			b.WriteString(roffText(strings.TrimPrefix(l, "  ")) + "\n")
		}
		b.WriteString(".fi\n")
	}
	b.WriteString(".SH EXIT STATUS\nSee\n.BR rivumi (1).\n.SH SEE ALSO\n.BR rivumi (1)\n")
	return b.String()
}

// mainPage is rivumi(1): the commands and the exit codes.
func mainPage(cmds []*cobra.Command, version string) string {
	var b strings.Builder
	th(&b, "rivumi", version)
	b.WriteString(".SH NAME\nrivumi \\- grade shell commands before they run\n")
	b.WriteString(".SH SYNOPSIS\n.nf\nrivumi COMMAND [flags] [operands]\n.fi\n")
	b.WriteString(".SH DESCRIPTION\n")
	paragraphs(&b, "rivumi parses a command into a shell syntax tree, finds every program it runs and grades each "+
		"with Rego policies: a critical floor nothing lowers, deny-first layering, and allow only when every part is allowed. "+
		"`rivumi COMMAND --help` (or the command's own page) shows its flags and examples; flags may come before or after "+
		"the operands, and `--` ends them.")
	b.WriteString(".SH COMMANDS\n")
	for _, c := range cmds {
		b.WriteString(".TP\n.B " + roffText(c.CommandPath()) + "\n" + roffText(c.Short) + "\n")
	}
	b.WriteString(".SH EXIT STATUS\nThe same for every command; a command uses the ones that apply to it.\n.nf\n")
	for _, l := range exitCodeTable() {
		b.WriteString(roffText(l) + "\n")
	}
	b.WriteString(".fi\n.SH SEE ALSO\n")
	for i, c := range cmds {
		sep := ","
		if i == len(cmds)-1 {
			sep = ""
		}
		b.WriteString(".BR " + roffText(manName(c)) + " (1)" + sep + "\n")
	}
	return b.String()
}

func th(b *strings.Builder, name, version string) {
	fmt.Fprintf(b, ".\\\" Generated by `rivumi man` from the command tree; do not edit.\n.TH %q 1 \"\" %q \"rivumi manual\"\n",
		strings.ToUpper(name), "rivumi "+version)
}

// paragraphs writes text, its blank lines separating paragraphs.
func paragraphs(b *strings.Builder, text string) {
	for i, p := range strings.Split(text, "\n\n") {
		if i > 0 {
			b.WriteString(".PP\n")
		}
		b.WriteString(roffText(strings.Join(strings.Fields(p), " ")) + "\n")
	}
}

// roffText escapes text for a roff text line: backslashes, hyphens (so
// that options copy as ASCII), a leading control character, and every
// character outside ASCII as a named Unicode glyph (\[u2026]).
func roffText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r > 0x7e || r < 0x20 && r != '\t':
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	s = b.String()
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

//go:embed cli.go
var cliSource string

// exitCodeTable is the exit code table of the package documentation (its
// one definition), line by line.
func exitCodeTable() []string {
	var table []string
	in := false
	for _, l := range strings.Split(cliSource, "\n") {
		switch {
		case strings.HasPrefix(l, "// # Exit codes"):
			in = true
		case in && strings.HasPrefix(l, "//\t"):
			table = append(table, strings.TrimPrefix(l, "//\t"))
		case in && len(table) > 0 && !strings.HasPrefix(l, "//\t"):
			return table
		}
	}
	return table
}
