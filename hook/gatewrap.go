package hook

import (
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rivumi/rivumi/internal/shquote"
)

// GateWrap is the hook's exec-gate mode: a shell command the text grading
// lets run (allow, or ask that the agent's user then confirms) is rewritten
// through the agent's updatedInput to run as
//
//	RIVUMI run --gate MODE --asks-approved --headless --sandbox landlock -- SHELL -c COMMAND
//
// so every program it starts is graded at its exec with its real argv
// (what the text could not see: a Makefile's recipe, a package script, a
// git alias). Denies are never rewritten; `rivumi run` grades the command
// again and refuses what the policy denies. Only agents whose protocol
// honours updatedInput on a PreToolUse answer are wrapped (Claude Code);
// on the others the option is refused when the hook starts.
type GateWrap struct {
	// Mode is the gate's mode: "floor" (refuse the execs the critical
	// floor denies), "deny" (… the policy denies) or "ask" (refuse every
	// exec the policy does not allow).
	Mode string
	// Rivumi is the absolute path of the full rivumi binary that runs the
	// command (the hook's own executable, or the server's when relayed).
	Rivumi string
}

// gateWrapAgents are the agents whose hook answer can rewrite the tool's
// input (measured: Claude Code's updatedInput replaces tool_input).
var gateWrapAgents = map[Agent]bool{ClaudeCode: true}

// CheckGateWrap reports whether the gate mode g can be used for agent.
func CheckGateWrap(agent Agent, g *GateWrap) error {
	if g == nil {
		return nil
	}
	if !gateWrapAgents[agent] {
		return fmt.Errorf("--gate: %s's hook protocol cannot rewrite a command, so it cannot run it through the gate", agent)
	}
	if g.Mode != "floor" && g.Mode != "deny" && g.Mode != "ask" {
		return fmt.Errorf("--gate %q: want off, floor, deny or ask", g.Mode)
	}
	if !filepath.IsAbs(g.Rivumi) {
		return errors.New("--gate: the rivumi binary's path is not absolute")
	}
	return nil
}

// gateInput returns the tool input with its command run through the gate,
// in the dialect the command was graded in.
func gateInput(g *GateWrap, input map[string]any, command, dialect string) (map[string]any, error) {
	sh, err := exec.LookPath(dialect)
	if err != nil {
		return nil, fmt.Errorf("the gate needs %s to run the command: %v", dialect, err)
	}
	if sh, err = filepath.Abs(sh); err != nil {
		return nil, err
	}
	words := []string{g.Rivumi, "run", "--gate", g.Mode, "--asks-approved", "--headless", "--sandbox", "landlock", "--", sh, "-c", command}
	for i, w := range words {
		words[i] = shquote.Word(w)
	}
	out := maps.Clone(input)
	out["command"] = strings.Join(words, " ")
	return out, nil
}
