package harness

import (
	"fmt"
	"slices"
	"sync"

	"github.com/rivumi/rivumi/verdict"
)

// GateMode is what the exec gate ([Config.Gate]) refuses among the
// programs an approved command starts.
type GateMode string

// The gate's modes.
const (
	// GateOff: no gate (the zero value).
	GateOff GateMode = ""
	// GateFloor refuses only what the critical floor denies (rm -rf ~,
	// curl | sh, …): team deny rules and asks pass, as the approval of a
	// build that legitimately runs them (a release script's git push
	// --force) would want.
	GateFloor GateMode = "floor"
	// GateDeny refuses every exec the policy denies (the floor and the deny
	// rules): an approved `make test` whose recipe runs `rm -rf ~` is
	// stopped at that exec. Asks pass: the approval covered running the
	// project's code.
	GateDeny GateMode = "deny"
	// GateAsk refuses asks too: only execs the policy allows run (and the
	// approved command itself).
	GateAsk GateMode = "ask"
)

// ParseGateMode parses off, floor, deny or ask ("" is off).
func ParseGateMode(s string) (GateMode, error) {
	switch s {
	case "", "off":
		return GateOff, nil
	case string(GateFloor), string(GateDeny), string(GateAsk):
		return GateMode(s), nil
	}
	return "", fmt.Errorf("unknown gate mode %q (want off, floor, deny or ask)", s)
}

// GatedExec is one exec the gate decided in a run.
type GatedExec struct {
	PID     int
	PPID    int // the process that called exec's parent (0: unknown)
	Path    string
	Argv    []string
	Allowed bool
	// Rule is the rule that refused it, or why it could not be graded.
	Rule string
}

// gate supervises one run's execs: it grades each with the harness's gate
// grader in the run's own context (its workspace, directory and grants,
// never the child's environment) and records the decisions.
type gate struct {
	h         *Harness
	mode      GateMode
	workspace string
	grants    []verdict.Grant
	first     []string // the approved command: its own exec passes
	firstPath string

	mu    sync.Mutex
	execs []GatedExec
}

func (g *gate) decisions() []GatedExec {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.execs)
}

// Gate returns the exec gate's mode in force (GateOff when none).
func (h *Harness) Gate() GateMode { return h.cfg.Gate }
