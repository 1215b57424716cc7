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
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"
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

// command is one subcommand: name path (e.g. "policy eval"), a one-line
// summary, and its function.
type command struct {
	summary string
	run     func(ctx context.Context, io Stdio, args []string) error
}

// commands maps a space-separated path ("policy eval") to its command. Each
// subcommand registers itself from its own file's init.
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
	if len(args) > 1 && args[0] == "help" { // rivumi help policy eval
		args = args[1:]
		if _, c, _ := lookup(args); c != nil || groupOf(args) != "" {
			args = append(args, "--help")
		}
	}
	if len(args) > 0 && args[0] == "__complete" { // the completion scripts' helper (completion.go)
		return runComplete(stdio, args[1:])
	}
	path, cmd, rest := lookup(args)
	if cmd == nil {
		// A group alone, or with help, lists its subcommands.
		if g := groupOf(args); g != "" {
			if len(args) == 1 || (len(args) == 2 && isHelpArg(args[1])) {
				groupUsage(stdio.Out, g)
				return ExitOK
			}
			fmt.Fprintf(stdio.Err, "rivumi: unknown command %q\n\n", strings.Join(args, " "))
			if didYouMean(stdio.Err, args) {
				return ExitError
			}
			groupUsage(stdio.Err, g)
			return ExitError
		}
		if len(args) > 0 && !isHelpArg(args[0]) {
			fmt.Fprintf(stdio.Err, "rivumi: unknown command %q\n\n", strings.Join(args, " "))
			if didYouMean(stdio.Err, args) {
				return ExitError
			}
			usage(stdio.Err)
			return ExitError
		}
		usage(stdio.Out)
		return ExitOK
	}
	return exitStatus(stdio, path, cmd.run(ctx, stdio, rest))
}

// recoverInternal, deferred, turns a panic into [ExitInternal] with the
// panic and its stack on stderr.
func recoverInternal(stdio Stdio, code *int) {
	if p := recover(); p != nil {
		fmt.Fprintf(stdio.Err, "rivumi: internal error (a bug; please report it): %v\n%s", p, debug.Stack())
		*code = ExitInternal
	}
}

// exitStatus is the exit code for the error the command at path returned,
// with its message on stderr.
func exitStatus(stdio Stdio, path string, err error) int {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		printExamples(stdio.Err, path)
		return ExitOK
	}
	var ee interface{ ExitCode() int }
	if errors.As(err, &ee) {
		if msg := err.Error(); msg != "" {
			fmt.Fprintf(stdio.Err, "rivumi: %s\n", msg)
		}
		return ee.ExitCode()
	}
	fmt.Fprintf(stdio.Err, "rivumi: %v\n", err)
	return ExitError
}

// lookup finds the longest registered command path that prefixes args.
// didYouMean writes the commands a mistyped args likely meant, and how to
// list them all, and reports whether it found any.
func didYouMean(w io.Writer, args []string) bool {
	s := suggestCommands(args)
	if len(s) == 0 {
		return false
	}
	fmt.Fprintln(w, "Did you mean this?")
	for _, p := range s {
		fmt.Fprintf(w, "\trivumi %s\n", p)
	}
	fmt.Fprintln(w, "\nrivumi help lists every command.")
	return true
}

func lookup(args []string) (string, *command, []string) {
	for n := min(len(args), 3); n > 0; n-- {
		p := strings.Join(args[:n], " ")
		if c, ok := commands[p]; ok {
			return p, &c, args[n:]
		}
	}
	return "", nil, args
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "rivumi grades shell commands before anything runs them.\n\nUsage:")
	paths := make([]string, 0, len(commands))
	for p := range commands {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(w, "  rivumi %-22s %s\n", p, commands[p].summary)
	}
	fmt.Fprintln(w, "\nrivumi COMMAND --help shows a command's flags and examples; rivumi version, the versions.")
}

// newFlags returns a flag set that reports errors (as usage errors) instead of exiting.
func newFlags(name string, stdio Stdio) *flag.FlagSet {
	fs := flag.NewFlagSet("rivumi "+name, flag.ContinueOnError)
	fs.SetOutput(stdio.Err)
	fs.Usage = defaultUsage(fs, name) // usage.go; commands may set their own
	return fs
}

// parseFlags parses args and turns flag errors into usage exits.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return exitCode(ExitError)
	}
	return nil
}
