package harness

import (
	"context"
	"os"
	"os/exec"
	"sync"

	"github.com/rivumi/rivumi/execgate"
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
