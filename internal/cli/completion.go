package cli

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rivumi/rivumi/hook"
	"github.com/rivumi/rivumi/programs"
)

// Shell completion is cobra's (`rivumi completion bash|zsh|fish|powershell`
// prints the script, which asks `rivumi __complete WORDS…`): commands,
// subcommands and flags from the tree, and through completeArgs the
// values of the flags and operands that take one of a few words.

// formatValues are the --format values of each command that has one.
var formatValues = map[string][]string{
	"policy eval":    {"text", "json"},
	"policy explain": {"text", "json"},
	"policy test":    {"text", "json", "junit", "github"},
	"policy check":   {"text", "github"},
	"policy replay":  {"text", "json", "html"},
}

// flagValues are the values of the other flags that take one of a few words.
var flagValues = map[string][]string{
	"sandbox":         {"auto", "bwrap", "landlock", "seatbelt", "none"},
	"gate":            {"off", "floor", "deny", "ask"},
	"ask-as":          {"auto", "ask", "deny", "pass", "allow"},
	"fail-on":         {"allow-increase", "loosen", "any-change", "none"},
	"remote-fallback": {"block", "local"},
	"cache":           {"project", "fresh"},
}

// agentOperands are the commands whose first operand (every operand, for
// hook doctor) names an agent.
var agentOperands = map[string]bool{"hook install": true, "hook doctor": true, "workspace agent": true}

// completeArgs completes the word toComplete after args (flags included:
// cobra leaves them to the command) of the command at path: a flag's
// value, or an agent's name; otherwise the shell completes file names.
func completeArgs(cmd *cobra.Command, stdio Stdio, path string, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if declareFlags(cmd, stdio) != nil {
		return nil, cobra.ShellCompDirectiveDefault
	}
	fs := cmd.Flags()
	operands := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil, cobra.ShellCompDirectiveDefault // an argv, or a command's text
		}
		if len(a) < 2 || a[0] != '-' {
			operands++
			continue
		}
		name, _, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f == nil || inline || f.NoOptDefVal != "" {
			continue
		}
		if i == len(args)-1 { // toComplete is this flag's value
			values := flagValues[name]
			switch name {
			case "format":
				values = formatValues[path]
			case "shell":
				values = programs.Dialects() // the registry, built on first use
			}
			if values == nil {
				return nil, cobra.ShellCompDirectiveDefault
			}
			return prefixed(values, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		i++
	}
	if agentOperands[path] && (operands == 0 || path == "hook doctor") && !strings.HasPrefix(toComplete, "-") {
		names := make([]string, len(hook.Agents))
		for i, a := range hook.Agents {
			names[i] = string(a)
		}
		return prefixed(names, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveDefault
}

// prefixed returns the values that start with prefix.
func prefixed(values []string, prefix string) []cobra.Completion {
	return slices.DeleteFunc(slices.Clone(values), func(v string) bool { return !strings.HasPrefix(v, prefix) })
}
