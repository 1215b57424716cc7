//go:build linux

package harness_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// attack runs one attack on the sandbox contract from inside a command. A
// nil error means it worked.
func attack(name string, args []string) error {
	switch name {
	case "remount": // make / writable again
		return unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_BIND, "")
	case "mount-tmpfs": // mount a file system of its own
		return unix.Mount("none", args[0], "tmpfs", 0, "")
	case "userns": // a child in a new user namespace (where every capability is its own again)
		c := exec.Command("/bin/true")
		c.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS}
		return c.Run()
	case "setns": // join the host's (pid 1's) network namespace
		f, err := os.Open("/proc/1/ns/net")
		if err != nil {
			return err
		}
		defer f.Close()
		return unix.Setns(int(f.Fd()), unix.CLONE_NEWNET)
	case "netlink": // a routing socket: what `ip link set lo up` uses
		fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "unix-connect": // connect to a pathname or (@name) abstract unix socket on the host
		c, err := net.DialTimeout("unix", args[0], 2*time.Second)
		if err != nil {
			return err
		}
		return c.Close()
	case "read": // read a file the contract hides
		b, err := os.ReadFile(args[0])
		if err == nil && len(b) == 0 {
			return errors.New("empty")
		}
		return err
	case "link": // a hard link in the workspace to a file outside, then a write through it
		if err := os.Link(args[0], args[1]); err != nil {
			return err
		}
		f, err := os.OpenFile(args[1], os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteString("written through a hard link\n")
		return err
	case "ptrace": // attach to a process outside the run
		runtime.LockOSThread() // ptrace requests come from the attaching thread
		pid, _ := strconv.Atoi(args[0])
		if err := unix.PtraceAttach(pid); err != nil {
			return err
		}
		var ws unix.WaitStatus
		unix.Wait4(pid, &ws, unix.WALL, nil)
		unix.PtraceDetach(pid)
		return nil
	case "kill": // signal a process outside the run
		pid, _ := strconv.Atoi(args[0])
		return unix.Kill(pid, unix.SIGWINCH)
	case "caps": // hold any capability
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			return err
		}
		if data[0].Effective|data[1].Effective|data[0].Permitted|data[1].Permitted == 0 {
			return errors.New("no capabilities")
		}
		return nil
	}
	return fmt.Errorf("unknown attack %q", name)
}
