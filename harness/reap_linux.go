package harness

import (
	"bytes"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// reapChild is the Landlock helper with [landlockSpec.Reap]: it becomes a
// child subreaper, starts the target as its child, reports ready, and waits.
// Every process the target starts is its descendant, and one whose parent
// exits (a daemon that double-forks, calls setsid and drops the run's
// environment marker) is re-parented to it. When the target exits, every
// descendant left is killed; when the helper is told to stop (SIGTERM,
// SIGINT, SIGHUP: the harness's timeout or cancellation), every descendant
// gets SIGTERM, then SIGKILL after spec.Grace; when rivumi dies (the
// lifeline reads end of file), every descendant is killed at once. It returns the exit status
// to leave with (the target's; a signal is re-raised).
func reapChild(spec landlockSpec, env []string, status *os.File, fail func(string, ...any)) int {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fail("child subreaper: %v", err)
	}
	stop := make(chan os.Signal, 4)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	lost := make(chan struct{})
	if spec.Lifeline > 0 {
		syscall.CloseOnExec(spec.Lifeline)
		life := os.NewFile(uintptr(spec.Lifeline), "lifeline")
		go func() {
			// Nothing is ever written: a read ends only when rivumi's end
			// is closed, by rivumi or by the kernel when it dies.
			var b [1]byte
			life.Read(b[:]) //nolint:errcheck
			close(lost)
		}()
	}
	pid, err := syscall.ForkExec(spec.Path, spec.Argv, &syscall.ProcAttr{Env: env, Files: []uintptr{0, 1, 2}})
	if err != nil {
		fail("start %s: %v", spec.Path, err)
	}
	if _, err := status.WriteString(statusReady); err != nil {
		syscall.Kill(pid, syscall.SIGKILL) //nolint:errcheck
		fail("status pipe: %v", err)
	}
	status.Close()

	var target syscall.WaitStatus
	targetDone, allGone := make(chan struct{}), make(chan struct{})
	go func() {
		for {
			var ws syscall.WaitStatus
			wpid, err := syscall.Wait4(-1, &ws, 0, nil)
			switch {
			case err == syscall.EINTR:
			case err != nil:
				close(allGone)
				return
			case wpid == pid:
				target = ws
				close(targetDone)
			}
		}
	}()
	self := os.Getpid()
	select {
	case <-targetDone:
	case <-lost:
		// rivumi is gone, and with it the gate's supervisor: nothing of the
		// tree may go on unwatched, so no grace.
	case <-stop:
		signalDescendants(self, syscall.SIGTERM)
		grace := time.NewTimer(spec.Grace)
		select {
		case <-targetDone:
		case <-grace.C:
		}
		grace.Stop()
	}
	// The command is over: nothing it started outlives it.
kill:
	for range 400 {
		select {
		case <-allGone:
			break kill
		default:
		}
		signalDescendants(self, syscall.SIGKILL)
		time.Sleep(5 * time.Millisecond)
	}
	<-targetDone
	switch {
	case target.Exited():
		return target.ExitStatus()
	case target.Signaled():
		sig := target.Signal()
		signal.Reset(sig)
		syscall.Kill(self, sig) //nolint:errcheck
		return 128 + int(sig)
	}
	return 126
}

// signalDescendants sends sig to every process below pid in the process
// tree (/proc's parent links).
func signalDescendants(pid int, sig syscall.Signal) {
	for _, p := range descendants(pid) {
		syscall.Kill(p, sig) //nolint:errcheck
	}
}

// descendants lists the processes below root in the process tree.
func descendants(root int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := parentOf(e.Name()); ok {
			children[pp] = append(children[pp], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// parentOf reads the parent pid of /proc/<pid>.
func parentOf(pid string) (int, bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, false
	}
	f := bytes.Fields(b[i+2:])
	if len(f) < 2 {
		return 0, false
	}
	pp, err := strconv.Atoi(string(f[1]))
	return pp, err == nil
}
