package cli

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/rivumi/rivumi/internal/lazyre"
)

func init() {
	register("completion", "print a shell completion script: bash, zsh or fish", runCompletion)
}

const completionUsage = `Usage: rivumi completion bash|zsh|fish

Prints a script that completes rivumi's commands, subcommands and flags
(paths elsewhere). The script asks the rivumi on PATH for the candidates
each time (rivumi __complete WORDS…), so it stays right as commands change.

Flags:
`

const completionExamples = `
Examples:
  source <(rivumi completion bash)          # in ~/.bashrc
  source <(rivumi completion zsh)           # in ~/.zshrc
  rivumi completion fish | source           # in ~/.config/fish/config.fish
`

// completionScripts are the shell glue; each calls rivumi __complete with
// the words after "rivumi", the last being the one to complete.
var completionScripts = map[string]string{
	"bash": `# rivumi completion for bash: source <(rivumi completion bash)
_rivumi() {
	local IFS=$'\n'
	COMPREPLY=($(rivumi __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -o bashdefault -F _rivumi rivumi
`,
	"zsh": `# rivumi completion for zsh: source <(rivumi completion zsh)
autoload -U +X bashcompinit && bashcompinit
_rivumi() {
	local IFS=$'\n'
	COMPREPLY=($(rivumi __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -o bashdefault -F _rivumi rivumi
`,
	"fish": `# rivumi completion for fish: rivumi completion fish | source
complete -c rivumi -a '(rivumi __complete (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)'
`,
}

func runCompletion(_ context.Context, stdio Stdio, args []string) error {
	fs := newFlags("completion", stdio)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), completionUsage)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), completionExamples)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || completionScripts[fs.Arg(0)] == "" {
		fs.Usage()
		return exitf(ExitError, "completion: want bash, zsh or fish")
	}
	fmt.Fprint(stdio.Out, completionScripts[fs.Arg(0)])
	return nil
}

// runComplete answers the scripts: words are what follows "rivumi" on
// the line, the last the (possibly empty) word being completed. It prints
// one candidate per line: the next word of a command path, or a flag of
// the command named; nothing where the shell should complete paths.
func runComplete(stdio Stdio, words []string) int {
	if len(words) == 0 {
		words = []string{""}
	}
	done, cur := words[:len(words)-1], words[len(words)-1]
	path, cmd, _ := lookup(done)
	var out []string
	switch {
	case cmd != nil && strings.HasPrefix(cur, "-"):
		for _, f := range commandFlags(path) {
			if strings.HasPrefix("--"+f, cur) {
				out = append(out, "--"+f)
			}
		}
	case cmd == nil:
		prefix := strings.Join(done, " ")
		seen := map[string]bool{}
		for p := range commands {
			if strings.HasPrefix(p, "__") {
				continue
			}
			rest, ok := strings.CutPrefix(p, prefix)
			if prefix != "" && (!ok || !strings.HasPrefix(rest, " ")) {
				continue
			}
			next := strings.Fields(rest)[0]
			if strings.HasPrefix(next, cur) && !seen[next] {
				seen[next] = true
				out = append(out, next)
			}
		}
	}
	sort.Strings(out)
	for _, c := range out {
		fmt.Fprintln(stdio.Out, c)
	}
	return ExitOK
}

// flagLine is a flag as the flag package's PrintDefaults writes it.
var flagLine = lazyre.New(`(?m)^  -([A-Za-z0-9][A-Za-z0-9-]*)`)

// commandFlags lists a command's flags, read from its own --help (the
// flags are declared where the command parses them).
func commandFlags(path string) []string {
	var out bytes.Buffer
	c := commands[path]
	_ = c.run(context.Background(), Stdio{In: strings.NewReader(""), Out: &out, Err: &out}, []string{"--help"})
	var flags []string
	for _, m := range flagLine().FindAllStringSubmatch(out.String(), -1) {
		flags = append(flags, m[1])
	}
	return flags
}
