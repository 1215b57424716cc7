//go:build unix

package harness

import (
	"os"
	"os/exec"
	"syscall"
)

// prepareGroup starts the command in a new session: a new process group
// (pgid == pid) with no controlling terminal.
func prepareGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}

// pgroup is a unix process group, signalled as a whole.
type pgroup int

func newProcGroup(p *os.Process) (procGroup, error) { return pgroup(p.Pid), nil }

func (g pgroup) terminate()  { syscall.Kill(-int(g), syscall.SIGTERM) } //nolint:errcheck // ESRCH: already gone
func (g pgroup) kill()       { syscall.Kill(-int(g), syscall.SIGKILL) } //nolint:errcheck
func (g pgroup) alive() bool { return groupAlive(int(g)) }
func (g pgroup) close()      {}
