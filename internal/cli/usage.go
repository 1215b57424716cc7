package cli

import (
	"fmt"
	"strings"
)

// help is what `rivumi CMD --help` says besides the summary and the
// flags: the synopsis (cobra's Use after the name; "[flags]" when empty),
// the description (cobra's Long) and the examples.
type help struct {
	synopsis    string // after "rivumi PATH"
	description string
	examples    []string
}

// helps holds the help of each command path; TestEveryCommandHelp checks
// that every registered command has a description and an example.
var helps = map[string]help{
	"policy eval": {
		synopsis: "[flags] COMMAND",
		description: `Grades one shell command (quote it as one argument) with the built-in
packs, the user packs named by --policy and the configuration files, and
prints the verdict with the rules that decided it. The project's standing
grants ('rivumi grant add', the ones the hooks apply) are applied too;
--no-grants grades without them. Flags may come before or after COMMAND.

Exit codes: 0 allow, 2 ask, 3 deny, 1 usage error, 4 policy error.
With 'go run', Go prints "exit status N" and exits 1: build or install
the binary to see the codes.`,
		examples: []string{
			`rivumi policy eval 'git push --force origin main && rm -rf ~/'`,
			`rivumi policy eval --format json 'ls -la | grep x'`,
			`rivumi policy eval --no-grants 'npm install lodash'`,
			`rivumi policy eval --batch commands.jsonl --format json`,
		},
	},
	"policy explain": {
		synopsis: "[flags] COMMAND",
		description: `Shows how a command was read and graded: each segment with its argv,
program, wrappers, flags, operands, writes and tags, every rule hit on it,
and the verdict. The project's standing grants apply as in 'policy eval'
(--no-grants: without them).

--trace evaluates each segment again through OPA with its tracer on and
shows, per segment, what became of each rule in scope (fired, did not
fire, not evaluated), the expression that failed with the values it read
(file:line), and the trace lines, as 'opa eval --explain' prints them. The
scope is the team's rules (--policy packs, YAML rules) when any are
loaded, else the built-in packs; --trace-rule ID narrows it to rules,
--trace-all widens it to every module. The traced decision is checked
against the engine's: a difference is printed as MISMATCH and exits 70.

Exit codes as 'policy eval'.`,
		examples: []string{
			`rivumi policy explain 'sudo env FOO=1 bash -c "rm -rf /tmp/x"'`,
			`rivumi policy explain --format json 'find . -name x -exec rm {} +'`,
			`rivumi policy explain --policy team/ --trace 'curl -k https://example.com'`,
			`rivumi policy explain --trace=full --trace-rule git.force-push 'git push origin main'`,
		},
	},
	"policy test": {examples: []string{
		`rivumi policy test                       # the built-in packs and testcases/`,
		`rivumi policy test --format junit . > report.xml   # a team's pack: its tests only`,
		`rivumi policy test --builtin --coverage .`,
	}},
	"policy check": {examples: []string{`rivumi policy check .`, `rivumi policy check --format github policies/ rules.yaml`}},
	"policy fmt":   {examples: []string{`rivumi policy fmt`, `rivumi policy fmt -w team/`}},
	"policy build": {examples: []string{`rivumi policy build -o bundle.tar.gz --policy team/`}},
	"run":          {examples: []string{`rivumi run --timeout 30s -- go version`, `rivumi run --sandbox bwrap -- ls -la`}},
	"serve":        {examples: []string{`rivumi serve --socket`, `rivumi serve --addr 127.0.0.1:8282 --policy team/`, `rivumi serve --stdio < requests.jsonl`}},
	"trust":        {examples: []string{`rivumi trust`, `rivumi trust --check`, `rivumi trust --revoke`}},
	"grant add":    {examples: []string{`rivumi grant add npm install`, `rivumi grant add --rule packages.install -- npm ci`}},
	"policy replay": {examples: []string{`rivumi policy replay --candidate team-next/ ~/.local/state/rivumi/audit.jsonl`,
		`rivumi policy replay --candidate team-next/ --fail-on allow-increase --format json decisions.jsonl`,
		`rivumi policy replay --candidate team-next/ --html replay.html decisions.jsonl`}},
	"man":     {examples: []string{`rivumi man --dir /usr/local/share/man/man1`, `rivumi man --dir man1 && man -l man1/rivumi-policy-eval.1`}},
	"version": {examples: []string{`rivumi version`, `rivumi --version`}},
	"hook install": {examples: []string{`rivumi hook install claude-code`, `rivumi hook install gemini --project -- --shadow`,
		`rivumi hook install codex -- --remote https://rivumi.example.com --remote-token-file ~/.config/rivumi/token`}},
	"hook doctor":       {synopsis: "[--project | --user] [-C DIR] [AGENT...]", description: "Checks each agent's settings (project and user) for the rivumi hook entry,\nthat the binary it runs is an absolute, executable path, and that a floor\ncommand (rm -rf /) is denied both in-process and by running the entry end\nto end. Exit code 0 when some agent is wired and nothing failed.", examples: []string{`rivumi hook doctor`, `rivumi hook doctor claude-code`}},
	"grant list":        {synopsis: "[flags]", description: "Lists the project's grants: each argv prefix and the ask rules it cancels.", examples: []string{`rivumi grant list`, `rivumi grant list --json`}},
	"grant rm":          {synopsis: "[flags] -- PROGRAM [SUBCOMMAND...]", description: "Removes the project's grant for exactly this argv prefix.", examples: []string{`rivumi grant rm -- npm install`}},
	"workspace prepare": {examples: []string{`rivumi workspace prepare -source . -commit "$(git rev-parse HEAD)" -run-root /tmp/runs -name fix-1`}},
	"workspace tool": {examples: []string{`rivumi workspace tool -run /tmp/runs/fix-1 read_file '{"path":"README.md"}'`,
		`rivumi workspace tool -run /tmp/runs/fix-1 run_check '{"name":"test"}'`}},
	"workspace tools": {synopsis: "", description: "Lists the workspace tools, each with its JSON arguments and what it does.",
		examples: []string{`rivumi workspace tools`}},
	"workspace finish": {examples: []string{`rivumi workspace finish -run /tmp/runs/fix-1 -verify`}},
	"workspace agent": {examples: []string{`rivumi workspace agent -run /tmp/runs/fix-1 -budget 20m -env ANTHROPIC_API_KEY claude-code -- claude -p "fix the failing test"`,
		`rivumi workspace agent -run /tmp/runs/fix-1 -home-file .codex/config.toml=$HOME/.codex/config.toml codex -- codex exec "fix the failing test"`}},
	"audit report": {examples: []string{`rivumi audit report`, `rivumi audit report --html report.html ~/.local/state/rivumi/audit.jsonl`}},
	"hook <agent>": {examples: []string{`echo '{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}' | rivumi hook %s`}},
}

// describe sets the synopsis and description of a command path (from the
// init of the command's own file; helps is read-only afterwards).
func describe(path, synopsis, description string) {
	h := helps[path]
	h.synopsis, h.description = synopsis, description
	helps[path] = h
}

// helpFor returns the help of a command path.
func helpFor(path string) help {
	h := helps[path]
	if agent, ok := strings.CutPrefix(path, "hook "); ok && len(h.examples) == 0 {
		for _, e := range helps["hook <agent>"].examples {
			h.examples = append(h.examples, fmt.Sprintf(e, agent))
		}
	}
	return h
}
