//go:build unix

package workspace

import (
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a session and process group of its own, killed
// whole when its context ends: nothing git starts outlives the call.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
