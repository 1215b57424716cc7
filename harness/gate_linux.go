package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/execgate"
	"github.com/rivumi/rivumi/verdict"
	"golang.org/x/sys/unix"
)

// gateFD is the descriptor on which the Landlock helper sends the gate's
// listener (see MaybeRunSandboxChild).
const gateFD = 4

// start adds the gate's socketpair to cmd (the child's end as fd 4, after
// the status pipe) and serves the listener the helper sends back until
// stop is called. A listener that never comes (the helper failed) leaves
// nothing to serve: the helper has not exec'd anything.
func (g *gate) start(ctx context.Context, cmd *exec.Cmd, sup *supervision) (stop func(), err error) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	child := os.NewFile(uintptr(pair[1]), "gate")
	cmd.ExtraFiles = append(cmd.ExtraFiles, child) // fd 4
	sup.parentClose = append(sup.parentClose, child)
	gctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer unix.Close(pair[0])
		listener, err := execgate.RecvFD(pair[0])
		if err != nil {
			return
		}
		execgate.Serve(gctx, listener, g.decide(gctx), g.record) //nolint:errcheck // a failed gate fails the tree's execs
	})
	return func() { cancel(); wg.Wait() }, nil
}

// installGate is the helper's side: the filter on this thread, the
// listener sent to the parent over fd 4.
func installGate() error {
	unix.CloseOnExec(gateFD)
	fd, err := execgate.InstallFilter()
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	defer unix.Close(gateFD)
	return execgate.SendFD(gateFD, fd)
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
		v, err := grade(ctx, g.h.gateGrader(), graded, dir, g.workspace, g.grants)
		if err != nil {
			return fmt.Errorf("harness.gate-error: %v", err)
		}
		refuse := v.Decision == verdict.Deny || (g.mode == GateAsk && v.Decision != verdict.Allow)
		if g.mode == GateFloor && v.Decision == verdict.Deny {
			refuse = slices.ContainsFunc(v.Reasons, func(r verdict.Reason) bool {
				return r.Decision == verdict.Deny && (r.Layer == verdict.LayerFloor || r.Layer == verdict.LayerEngine || r.Layer == "")
			})
		}
		if v.Decision != verdict.Allow && v.Decision != verdict.Ask && v.Decision != verdict.Deny {
			refuse = true
		}
		if !refuse {
			return nil
		}
		var rules []string
		for _, r := range v.Reasons {
			if r.Decision >= verdict.Ask && r.Rule != "" && !slices.Contains(rules, r.Rule) {
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
	g.execs = append(g.execs, GatedExec{PID: d.PID, PPID: d.PPID, Path: d.Path, Argv: audit.RedactArgv(d.Argv), Allowed: d.Allowed, Rule: d.Reason})
}

// gateGrader is [Config.GateGrader], else [Config.Grader].
func (h *Harness) gateGrader() verdict.Grader {
	if h.cfg.GateGrader != nil {
		return h.cfg.GateGrader
	}
	return h.cfg.Grader
}
