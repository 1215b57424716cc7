package cli

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func init() {
	register("man", "write manual pages (roff): rivumi(1) and one per command", runMan)
}

const manUsage = `Usage: rivumi man [--dir DIR]

Writes the manual pages: rivumi.1 (the commands and the exit codes) and
one page per command, rivumi-policy-eval.1 and so on, made from the
commands' own --help (description, flags, examples), so that they say what
the binary does. Install them where man looks (man -w shows the path).

Flags:
`

const manExamples = `
Examples:
  rivumi man --dir /usr/local/share/man/man1
  rivumi man --dir man1 && man -l man1/rivumi-policy-eval.1
`

func runMan(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("man", stdio)
	dir := fs.String("dir", ".", "directory the pages are written to (created if missing)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), manUsage)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), manExamples)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return exitf(ExitError, "man: no operands (the pages go to --dir)")
	}
	pages, err := manPages(ctx)
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

// manPages renders every page, by file name.
func manPages(ctx context.Context) (map[string]string, error) {
	version := moduleVersion()
	var paths []string
	for p := range commands {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	pages := map[string]string{}
	var see []string
	for _, p := range paths {
		help, err := commandHelp(ctx, p)
		if err != nil {
			return nil, err
		}
		name := "rivumi-" + strings.ReplaceAll(p, " ", "-")
		pages[name+".1"] = commandPage(name, p, commands[p].summary, help, version)
		see = append(see, name)
	}
	pages["rivumi.1"] = mainPage(paths, see, version)
	return pages, nil
}

// commandHelp is what `rivumi PATH --help` prints.
func commandHelp(ctx context.Context, path string) (string, error) {
	var out, errb bytes.Buffer
	code := Main(ctx, append(strings.Fields(path), "--help"), Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != 0 {
		return "", fmt.Errorf("rivumi %s --help: exit %d", path, code)
	}
	return errb.String() + out.String(), nil
}

// commandPage renders one command's --help as a page: the usage line is
// the synopsis, the text before "Flags:" the description, the flags the
// options, "Examples:" the examples.
func commandPage(name, path, summary, help, version string) string {
	var b strings.Builder
	th(&b, name, version)
	b.WriteString(".SH NAME\n" + roffText(name) + " \\- " + roffText(summary) + "\n")
	head, rest, _ := strings.Cut(help, "\nFlags:\n")
	flags, examples, _ := strings.Cut(rest, "\nExamples:\n")
	if rest == "" { // no flags section
		head, examples, _ = strings.Cut(help, "\nExamples:\n")
	}
	usage, desc, _ := strings.Cut(strings.TrimSpace(head), "\n")
	b.WriteString(".SH SYNOPSIS\n.nf\n" + roffText(strings.TrimSpace(strings.TrimPrefix(usage, "Usage:"))) + "\n.fi\n")
	if d := strings.TrimSpace(desc); d != "" {
		b.WriteString(".SH DESCRIPTION\n")
		paragraphs(&b, d)
	}
	if f := strings.TrimRight(flags, "\n"); strings.TrimSpace(f) != "" {
		b.WriteString(".SH OPTIONS\n")
		options(&b, f)
	}
	if e := strings.Trim(examples, "\n"); e != "" {
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
func mainPage(paths, see []string, version string) string {
	var b strings.Builder
	th(&b, "rivumi", version)
	b.WriteString(".SH NAME\nrivumi \\- grade shell commands before they run\n")
	b.WriteString(".SH SYNOPSIS\n.nf\nrivumi COMMAND [flags] [operands]\n.fi\n")
	b.WriteString(".SH DESCRIPTION\n")
	paragraphs(&b, "rivumi parses a command into a shell syntax tree, finds every program it runs and grades each "+
		"with Rego policies: a critical floor nothing lowers, deny-first layering, and allow only when every part is allowed. "+
		"`rivumi COMMAND --help` (or the command's own page) shows its flags and examples.")
	b.WriteString(".SH COMMANDS\n")
	for _, p := range paths {
		b.WriteString(".TP\n.B rivumi " + roffText(p) + "\n" + roffText(commands[p].summary) + "\n")
	}
	b.WriteString(".SH EXIT STATUS\nThe same for every command; a command uses the ones that apply to it.\n.nf\n")
	for _, l := range exitCodeTable() {
		b.WriteString(roffText(l) + "\n")
	}
	b.WriteString(".fi\n.SH SEE ALSO\n")
	for i, s := range see {
		sep := ","
		if i == len(see)-1 {
			sep = ""
		}
		b.WriteString(".BR " + roffText(s) + " (1)" + sep + "\n")
	}
	return b.String()
}

func th(b *strings.Builder, name, version string) {
	fmt.Fprintf(b, ".\\\" Generated by `rivumi man` from the commands' --help; do not edit.\n.TH %q 1 \"\" %q \"rivumi manual\"\n",
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

// options renders the flag package's defaults: "  -name TYPE" lines, each
// followed by its indented description.
func options(b *strings.Builder, flags string) {
	for _, l := range strings.Split(flags, "\n") {
		switch t := strings.TrimSpace(l); {
		case t == "":
		case strings.HasPrefix(l, "  -"):
			name, arg, _ := strings.Cut(t, " ")
			b.WriteString(".TP\n\\fB" + roffText(name) + "\\fR")
			if arg != "" {
				b.WriteString(" \\fI" + roffText(arg) + "\\fR")
			}
			b.WriteString("\n")
		default:
			b.WriteString(roffText(t) + "\n")
		}
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
