// Package cli implements the rivumi command line. It is a function of its
// inputs: [Main] takes the arguments and the standard streams and returns the
// process exit code, so the whole CLI runs in-process under tests.
//
// # Exit codes
//
// This table is the one place exit codes are defined; tests assert them
// (testdata/script/*.txtar).
//
//	0     success; `policy eval`: the command is allowed; `run`: the child's own code
//	1     usage error or internal error
//	2     `policy eval`: the verdict is ask; `hook …`: the call is blocked (every
//	      supported agent reads exit 2 as "block", with stderr as the reason)
//	3     `policy eval`: the verdict is deny; `policy test`: a test failed
//	      (opa test exits 2 there); `policy fmt`: a file is not in canonical form;
//	      `workspace finish`: the run's status is failed
//	4     a policy failed to load or compile (`policy check` problems included;
//	      opa test exits 1 there)
//	5     `workspace tool`: the call was refused at the tool boundary (the JSON
//	      result on stdout says why)
//	70    internal error: a bug in rivumi (a panic, recovered, its stack on stderr);
//	      never a verdict. Grading itself never panics out: a panic there is a deny
//	      verdict (engine.internal-error), so `policy eval` exits 3 and `run` 125
//	124   `run`: the child was killed after its timeout
//	125   `run`: the command was denied (by the policy, an approver, or the harness)
//	126   `run`, `workspace tool`, `mcp`: the requested sandbox is not available
//	128+N `run`: the child was ended by signal N
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes; see the package documentation.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitAsk         = 2
	ExitDeny        = 3
	ExitTestFailed  = 3
	ExitPolicyError = 4
	ExitRefused     = 5
	ExitTimeout     = 124
	ExitDenied      = 125
	ExitNoSandbox   = 126
	ExitInternal    = 70
)

// Stdio holds the streams a command reads and writes.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer

	// cmd is the cobra command being run (or whose flags are being
	// declared, with define set); see [newFlags].
	cmd    *cobra.Command
	define bool
}

// exitError carries an exit code up to [Main]; its message (if any) is
// printed on stderr.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }
func (e *exitError) ExitCode() int { return e.code }

// exitf returns an error that makes Main exit with code after printing the message.
func exitf(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

// exitCode returns an error that makes Main exit with code silently.
func exitCode(code int) error { return &exitError{code: code} }

// command is one subcommand: a one-line summary, and its function. The
// function declares its flags on the set [newFlags] gives it, then parses
// args with [parseFlags] before doing anything else: the command tree
// learns a command's flags (for help, completion and the manual) by
// running it up to that parse (see [declareFlags]).
type command struct {
	summary string
	run     func(ctx context.Context, io Stdio, args []string) error
}

// commands maps a space-separated path ("policy eval") to its command. Each
// subcommand registers itself from its own file's init; it is read-only
// afterwards.
var commands = map[string]command{}

func register(path, summary string, run func(ctx context.Context, io Stdio, args []string) error) {
	if _, dup := commands[path]; dup {
		panic("cli: duplicate command " + path)
	}
	commands[path] = command{summary: summary, run: run}
}

// Main runs the CLI with args (without the program name) and returns the
// process exit code.
func Main(ctx context.Context, args []string, stdio Stdio) (code int) {
	defer recoverInternal(stdio, &code)
	if stdio.In == nil {
		stdio.In = os.Stdin
	}
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version") {
		args = []string{"version"}
	}
	if args == nil {
		args = []string{} // cobra reads os.Args for nil
	}
	root := newTree(stdio)
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		// cobra completes flag names from the command's flag set.
		if cmd, _, err := root.Find(args[1:]); err == nil {
			if err := declareFlags(cmd, stdio); err != nil {
				panic(err)
			}
		}
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	return exitStatus(stdio, cmd, err)
}

// recoverInternal, deferred, turns a panic into [ExitInternal] with the
// panic and its stack on stderr.
func recoverInternal(stdio Stdio, code *int) {
	if p := recover(); p != nil {
		fmt.Fprintf(stdio.Err, "rivumi: internal error (a bug; please report it): %v\n%s", p, debug.Stack())
		*code = ExitInternal
	}
}

// exitStatus is the exit code for the error cmd returned, with its
// message on stderr. An error without an exit code is a usage error
// (cobra's unknown command or flag).
func exitStatus(stdio Stdio, cmd *cobra.Command, err error) int {
	if err == nil {
		return ExitOK
	}
	var ee interface{ ExitCode() int }
	if errors.As(err, &ee) {
		if msg := err.Error(); msg != "" {
			fmt.Fprintf(stdio.Err, "rivumi: %s\n", msg)
		}
		return ee.ExitCode()
	}
	fmt.Fprintf(stdio.Err, "rivumi: %s\n", strings.TrimRight(err.Error(), "\n"))
	if cmd != nil {
		fmt.Fprintf(stdio.Err, "\nRun '%s --help' for usage.\n", cmd.CommandPath())
	}
	return ExitError
}

// groupSummaries are the one-line summaries of the command groups.
var groupSummaries = map[string]string{
	"audit":     "read decision logs",
	"grant":     "the project's standing grants",
	"hook":      "answer agents' hook calls, and wire and check the hooks",
	"policy":    "grade, explain, test, check, format, build and replay policies",
	"workspace": "disposable pinned clones an agent works in",
}

// newTree builds the command tree of one [Main] call: a cobra command per
// registered path, the groups as their parents, and cobra's help and
// completion commands. Nothing in it outlives the call.
func newTree(stdio Stdio) *cobra.Command {
	root := &cobra.Command{
		Use:   "rivumi",
		Short: "grade shell commands before anything runs them",
		Long: `rivumi grades shell commands before anything runs them.

'rivumi COMMAND --help' shows a command's flags and examples; 'rivumi
version', the versions; 'rivumi man' writes the manual pages, which
list the exit codes.`,
		SilenceErrors:              true,
		SilenceUsage:               true,
		SuggestionsMinimumDistance: 2,
	}
	root.SetIn(stdio.In)
	root.SetOut(stdio.Out)
	root.SetErr(stdio.Err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return err })
	paths := make([]string, 0, len(commands))
	for p := range commands {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	groups := map[string]*cobra.Command{}
	for _, p := range paths {
		parent := root
		words := strings.Fields(p)
		for i := range len(words) - 1 {
			gp := strings.Join(words[:i+1], " ")
			g := groups[gp]
			if g == nil {
				g = groupCommand(words[i])
				groups[gp] = g
				parent.AddCommand(g)
			}
			parent = g
		}
		parent.AddCommand(leafCommand(p, commands[p], stdio))
	}
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if err := declareFlags(c, stdio); err != nil {
			panic(err) // a command that does not declare its flags first; TestDeclareFlags
		}
		help(c, args)
	})
	root.SetHelpCommand(helpCommand())
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" { // a shell it has no script for is a usage error
			c.Args = groupCommand(c.Name()).Args
			c.SuggestionsMinimumDistance = 2
			c.Short = "print a shell completion script: bash, zsh, fish or powershell"
			for _, sh := range c.Commands() {
				sh.Short = "print the " + sh.Name() + " completion script"
			}
			c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
		}
	}
	return root
}

// groupCommand is a command group: alone it shows its help; with a word
// that names none of its subcommands it is a usage error with cobra's
// suggestions (cobra only checks that at the root).
func groupCommand(name string) *cobra.Command {
	return &cobra.Command{
		Use:                        name,
		Short:                      groupSummaries[name],
		SuggestionsMinimumDistance: 2,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			return unknownCommand(c, args[0])
		},
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
}

// unknownCommand is the usage error for a word that names no subcommand of c.
func unknownCommand(c *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q for %q", word, c.CommandPath())
	if s := c.SuggestionsFor(word); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return errors.New(msg)
}

// helpCommand is `rivumi help [COMMAND...]`: cobra's, except that an
// unknown command is a usage error rather than a help page.
func helpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND...]",
		Short: "help about any command",
		ValidArgsFunction: func(c *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			cmd, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, s := range cmd.Commands() {
				if s.IsAvailableCommand() {
					out = append(out, cobra.CompletionWithDesc(s.Name(), s.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return unknownCommand(cmd, rest[0])
			}
			return cmd.Help()
		},
	}
}

// leafCommand is the cobra command of a registered path. Cobra leaves its
// arguments alone (DisableFlagParsing): the command parses its own flags
// with [parseFlags], which cobra's parse would otherwise repeat.
func leafCommand(path string, c command, stdio Stdio) *cobra.Command {
	words := strings.Fields(path)
	h := helpFor(path)
	synopsis := h.synopsis
	if synopsis == "" {
		synopsis = "[flags]"
	}
	long := h.description
	if long == "" {
		long = strings.ToUpper(c.summary[:1]) + c.summary[1:] + "."
	}
	var ex strings.Builder
	for i, e := range h.examples {
		if i > 0 {
			ex.WriteString("\n")
		}
		ex.WriteString("  " + e)
	}
	cmd := &cobra.Command{
		Use:                words[len(words)-1] + " " + synopsis,
		Short:              c.summary,
		Long:               long,
		Example:            ex.String(),
		DisableFlagParsing: true,
		Args:               cobra.ArbitraryArgs,
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		s := stdio
		s.cmd = cmd
		err := c.run(cmd.Context(), s, args)
		if errors.Is(err, pflag.ErrHelp) {
			return cmd.Help()
		}
		return err
	}
	cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return completeArgs(cmd, stdio, path, args, toComplete)
	}
	return cmd
}

// declaredAnnotation marks a command whose flags are declared.
const declaredAnnotation = "rivumi.flags-declared"

// errFlagsDeclared is what a command returns when it runs only to declare
// its flags ([Stdio].define).
var errFlagsDeclared = errors.New("flags declared")

// declareFlags makes cmd's flag set hold the flags of its command, by
// running the command up to its parse (which returns errFlagsDeclared
// without parsing); groups and cobra's own commands have theirs already.
func declareFlags(cmd *cobra.Command, stdio Stdio) error {
	if cmd.Annotations[declaredAnnotation] != "" {
		return nil
	}
	path := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	c, ok := commands[path]
	if !ok || !cmd.DisableFlagParsing {
		return nil
	}
	cmd.InitDefaultHelpFlag()
	s := Stdio{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard, cmd: cmd, define: true}
	if err := c.run(context.Background(), s, nil); !errors.Is(err, errFlagsDeclared) {
		return fmt.Errorf("cli: %s did not declare its flags before doing anything else (it returned %v)", path, err)
	}
	return nil
}

// flagSet is a command's pflag set, with what [parseFlags] needs to know.
type flagSet struct {
	*pflag.FlagSet
	path         string // "policy eval"
	define       bool   // declaring only: parseFlags parses nothing
	interspersed bool
}

// newFlags returns the flag set of the command at path name: the cobra
// command's own when stdio is that command's (so help, completion and the
// manual show the flags), else a new one.
func newFlags(name string, stdio Stdio) *flagSet {
	if c := stdio.cmd; c != nil && c.CommandPath() == c.Root().Name()+" "+name && c.Annotations[declaredAnnotation] == "" {
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[declaredAnnotation] = "yes"
		fs := c.Flags()
		fs.SetOutput(stdio.Err)
		return &flagSet{FlagSet: fs, path: name, define: stdio.define, interspersed: true}
	}
	fs := pflag.NewFlagSet("rivumi "+name, pflag.ContinueOnError)
	fs.SetOutput(stdio.Err)
	fs.Usage = func() {} // --help is the caller's to answer ([pflag.ErrHelp])
	return &flagSet{FlagSet: fs, path: name, interspersed: true}
}

// String is pflag's String, except that a one-letter name is also the
// flag's shorthand: -C DIR, as the flag package spelled it, and as help
// shows it.
func (fs *flagSet) String(name, value, usage string) *string {
	if len(name) == 1 {
		return fs.StringP(name, name, value, usage)
	}
	return fs.FlagSet.String(name, value, usage)
}

// Bool is pflag's Bool, with String's shorthand for a one-letter name.
func (fs *flagSet) Bool(name string, value bool, usage string) *bool {
	if len(name) == 1 {
		return fs.BoolP(name, name, value, usage)
	}
	return fs.FlagSet.Bool(name, value, usage)
}

// SetInterspersed(false) makes the first operand end the flags, for the
// commands whose operands are an argv (`run ls -la`).
func (fs *flagSet) SetInterspersed(interspersed bool) {
	fs.interspersed = interspersed
	fs.FlagSet.SetInterspersed(interspersed)
}

// parseFlags parses args, flags among the operands (up to `--`, or the
// first operand after SetInterspersed(false)); a flag error is a usage
// error, --help or -h [pflag.ErrHelp].
func parseFlags(fs *flagSet, args []string) error {
	err := parseArgs(fs, args)
	if err == nil || errors.Is(err, pflag.ErrHelp) || errors.Is(err, errFlagsDeclared) {
		return err
	}
	name := fs.path
	if bad, pos := strayFlag(fs, args); bad != "" && len(pos) > 0 {
		// Most often a word of an unquoted command: `policy eval ls -la`.
		return exitf(ExitError, "%s: %q after %q is not a flag of this command; quote the whole command as one argument: rivumi %s %s",
			name, bad, pos[len(pos)-1], name, singleQuote(strings.Join(append(pos, bad), " ")))
	}
	return exitf(ExitError, "%s: %v\n\nRun 'rivumi %s --help' for usage.", name, err, name)
}

// parseArgs parses args into fs after [goFlagSpelling], and returns
// [pflag.ErrHelp] for --help and -h.
func parseArgs(fs *flagSet, args []string) error {
	fs.VisitAll(optionalValue)
	if fs.define {
		return errFlagsDeclared
	}
	if err := fs.Parse(goFlagSpelling(fs.FlagSet, args, fs.interspersed)); err != nil {
		return err
	}
	if help, err := fs.GetBool("help"); err == nil && help {
		return pflag.ErrHelp
	}
	return nil
}

// optionalValue lets a flag whose value says it is boolean in the flag
// package's way (IsBoolFlag: --socket or --socket=PATH) go without a value.
func optionalValue(f *pflag.Flag) {
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() && f.NoOptDefVal == "" {
		f.NoOptDefVal = "true"
	}
}

// goFlagSpelling rewrites the Go flag package's spelling of a long flag
// fs defines, -name or -name=value, to --name: the spelling the hook
// entries that older versions installed, and older scripts, use. It
// rewrites nothing after `--`, nothing after the first operand when
// interspersed is false, and never a flag's value or an operand.
func goFlagSpelling(fs *pflag.FlagSet, args []string, interspersed bool) []string {
	out := make([]string, len(args))
	copy(out, args)
	takesValue := func(f *pflag.Flag, inline bool) bool { return f != nil && !inline && f.NoOptDefVal == "" }
	for i := 0; i < len(out); i++ {
		a := out[i]
		switch {
		case a == "--":
			return out
		case len(a) < 2 || a[0] != '-': // an operand, or "-"
			if !interspersed {
				return out
			}
		case strings.HasPrefix(a, "--"):
			name, _, inline := strings.Cut(a[2:], "=")
			if takesValue(fs.Lookup(name), inline) {
				i++
			}
		default:
			name, _, inline := strings.Cut(a[1:], "=")
			if f := fs.Lookup(name); f != nil {
				out[i] = "-" + a
				if takesValue(f, inline) {
					i++
				}
			} else if len(a) == 2 && takesValue(fs.ShorthandLookup(a[1:]), false) {
				i++
			}
		}
	}
	return out
}

// strayFlag returns the first argument of args that is not a flag fs
// knows, with the operands before it.
func strayFlag(fs *flagSet, args []string) (string, []string) {
	var pos []string
	args = goFlagSpelling(fs.FlagSet, args, fs.interspersed)
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return "", nil
		case len(a) < 2 || a[0] != '-':
			pos = append(pos, a)
		case strings.HasPrefix(a, "--"):
			name, _, inline := strings.Cut(a[2:], "=")
			f := fs.Lookup(name)
			if f == nil {
				return a, pos
			}
			if !inline && f.NoOptDefVal == "" {
				i++
			}
		default:
			if fs.ShorthandLookup(a[1:2]) == nil {
				return a, pos
			}
		}
	}
	return "", nil
}

// singleQuote quotes s for a POSIX shell.
func singleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
