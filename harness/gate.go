package harness

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/execgate"
)

// GateMode is what the exec gate ([Config.Gate]) refuses among the
// programs an approved command starts.
type GateMode string

// The gate's modes.
const (
	// GateOff: no gate (the zero value).
	GateOff GateMode = ""
	// GateDeny refuses every exec the policy denies (the floor and the deny
	// rules): an approved `make test` whose recipe runs `rm -rf ~` is
	// stopped at that exec. Asks pass: the approval covered running the
	// project's code.
	GateDeny GateMode = "deny"
	// GateAsk refuses asks too: only execs the policy allows run (and the
	// approved command itself).
	GateAsk GateMode = "ask"
)

// ParseGateMode parses off, deny or ask ("" is off).
func ParseGateMode(s string) (GateMode, error) {
	switch s {
	case "", "off":
		return GateOff, nil
	case string(GateDeny), string(GateAsk):
		return GateMode(s), nil
	}
	return "", fmt.Errorf("unknown gate mode %q (want off, deny or ask)", s)
}

// GatedExec is one exec the gate decided in a run.
type GatedExec struct {
	PID     int
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
	grants    []engine.Grant
	first     []string // the approved command: its own exec passes
	firstPath string

	mu    sync.Mutex
	execs []GatedExec
}

func (g *gate) decide(ctx context.Context) execgate.Decide {
	return func(e execgate.Exec) error {
		argv := e.Argv
		if len(argv) == 0 {
			argv = []string{e.Path}
		}
		if g.first != nil && e.Path == g.firstPath && slices.Equal(argv, g.first) {
			g.first = nil // once: the command itself, already graded and approved
			return nil
		}
		// Grade the program as the kernel will run it: argv[0] as the
		// resolved path, which the engine reads by its base name.
		graded := append([]string{e.Path}, argv[1:]...)
		dir := e.Dir
		if dir == "" || !filepath.IsAbs(dir) {
			dir = g.workspace
		}
		v, err := g.h.gateGrader().GradeArgv(ctx, graded, GradeOptions{Cwd: dir, Workspace: g.workspace, Grants: g.grants})
		if err != nil {
			return fmt.Errorf("harness.gate-error: %v", err)
		}
		refuse := v.Decision == engine.Deny || (g.mode == GateAsk && v.Decision != engine.Allow)
		if v.Decision != engine.Allow && v.Decision != engine.Ask && v.Decision != engine.Deny {
			refuse = true
		}
		if !refuse {
			return nil
		}
		var rules []string
		for _, r := range v.Reasons {
			if r.Decision >= engine.Ask && r.Rule != "" && !slices.Contains(rules, r.Rule) {
				rules = append(rules, r.Rule)
			}
		}
		if len(rules) == 0 {
			rules = []string{"harness.gate-" + v.Decision.String()}
		}
		return errors.New(strings.Join(rules, ","))
	}
}

func (g *gate) record(d execgate.Decision) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.execs = append(g.execs, GatedExec{PID: d.PID, Path: d.Path, Argv: audit.RedactArgv(d.Argv), Allowed: d.Allowed, Rule: d.Reason})
}

func (g *gate) decisions() []GatedExec {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.execs)
}

// gateGrader is [Config.GateGrader], else [Config.Grader].
func (h *Harness) gateGrader() Grader {
	if h.cfg.GateGrader != nil {
		return h.cfg.GateGrader
	}
	return h.cfg.Grader
}

// Gate returns the exec gate's mode in force (GateOff when none).
func (h *Harness) Gate() GateMode { return h.cfg.Gate }
