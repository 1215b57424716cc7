package harness

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// procOutcome is what supervising one process produced.
type procOutcome struct {
	state            *os.ProcessState
	timedOut         bool
	cancelled        bool
	killedAfterGrace bool
	stragglers       bool
	escaped          []EscapedProcess
	outputIncomplete bool
	duration         time.Duration
}

// supervision holds the knobs of one supervised run.
type supervision struct {
	timeout time.Duration
	grace   time.Duration
	stdout  *capture
	stderr  *capture
	done    <-chan struct{} // the run's context
	// parentClose are files to close in the parent once the child started
	// (the write ends it inherited).
	parentClose []*os.File
	// beforeStart runs right before Start; an error aborts the start.
	beforeStart func() error
	// reapEscaped, once the group is gone, stops the run's processes that
	// left it and reports them; since is when the leader started (see
	// processStart).
	reapEscaped func(since uint64) []EscapedProcess
}

// notStartedError wraps errors that happened before the process started.
type notStartedError struct{ err error }

func (e *notStartedError) Error() string { return e.err.Error() }
func (e *notStartedError) Unwrap() error { return e.err }

// run starts cmd in a new session (so a new process group whose id is its
// pid), drains its stdout and stderr through the captures, and enforces
// the timeout and cancellation: SIGTERM to the group, the grace period,
// SIGKILL to the group. After the leader exits, any process left in its
// group gets the same treatment, and output pipes held open by processes
// that left the group are closed after the grace period, so run always
// returns.
func (s supervision) run(cmd *exec.Cmd) (procOutcome, error) {
	var out procOutcome
	rOut, wOut, err := os.Pipe()
	if err != nil {
		return out, err
	}
	rErr, wErr, err := os.Pipe()
	if err != nil {
		rOut.Close()
		wOut.Close()
		return out, err
	}
	cmd.Stdout, cmd.Stderr = wOut, wErr
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// A new session: a new process group (pgid == pid) with no controlling
	// terminal, so the child can neither prompt on /dev/tty nor push input
	// into the user's terminal.
	cmd.SysProcAttr.Setsid = true
	// Bounds Wait when the caller gave a non-file Stdin that exec copies.
	cmd.WaitDelay = s.grace

	closeParent := func() {
		wOut.Close()
		wErr.Close()
		for _, f := range s.parentClose {
			f.Close()
		}
	}
	if s.beforeStart != nil {
		if err := s.beforeStart(); err != nil {
			closeParent()
			rOut.Close()
			rErr.Close()
			return out, &notStartedError{err}
		}
	}
	start := time.Now()
	err = cmd.Start()
	closeParent()
	if err != nil {
		rOut.Close()
		rErr.Close()
		return out, &notStartedError{err}
	}
	pgid := cmd.Process.Pid
	leaderStart := processStart(pgid) // the run's processes start no earlier

	var drains sync.WaitGroup
	for _, p := range []struct {
		r *os.File
		c *capture
	}{{rOut, s.stdout}, {rErr, s.stderr}} {
		drains.Go(func() {
			buf := make([]byte, 256<<10)
			io.CopyBuffer(p.c, p.r, buf) //nolint:errcheck // ends at EOF or when we close r
		})
	}
	drained := make(chan struct{})
	go func() { drains.Wait(); close(drained) }()

	waited := make(chan struct{})
	go func() { cmd.Wait(); close(waited) }() //nolint:errcheck // the state is in cmd.ProcessState

	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	var termSent time.Time
	term := func() {
		if termSent.IsZero() {
			syscall.Kill(-pgid, syscall.SIGTERM) //nolint:errcheck // ESRCH: already gone
			termSent = time.Now()
		}
	}
	select {
	case <-waited:
	case <-timer.C:
		out.timedOut = true
	case <-s.done:
		out.cancelled = true
	}
	if out.timedOut || out.cancelled {
		term()
		grace := time.NewTimer(s.grace)
		select {
		case <-waited:
		case <-grace.C:
			syscall.Kill(-pgid, syscall.SIGKILL) //nolint:errcheck
			out.killedAfterGrace = true
			<-waited
		}
		grace.Stop()
	}
	out.duration = time.Since(start)
	out.state = cmd.ProcessState

	// The leader is reaped; its group id stays reserved while members
	// remain. Whatever is left of the group goes the same way.
	if groupAlive(pgid) {
		out.stragglers = true
		term()
		deadline := termSent.Add(s.grace)
		for groupAlive(pgid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if groupAlive(pgid) {
			syscall.Kill(-pgid, syscall.SIGKILL) //nolint:errcheck
			out.killedAfterGrace = true
		}
	}

	// Processes that left the group (setsid) are found by the run's
	// marker and stopped; others may still hold the pipes.
	if s.reapEscaped != nil {
		out.escaped = s.reapEscaped(leaderStart)
	}
	select {
	case <-drained:
	case <-time.After(s.grace):
		out.outputIncomplete = true
	}
	rOut.Close() // unblocks a pending read
	rErr.Close()
	<-drained
	return out, nil
}

// groupAlive reports whether any live (not zombie) process is in process
// group pgid. Zombies count as gone: they no longer run, and an init that
// does not reap (as in some containers) would otherwise keep them forever.
func groupAlive(pgid int) bool {
	d, err := os.Open("/proc")
	if err != nil {
		return syscall.Kill(-pgid, 0) == nil
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return syscall.Kill(-pgid, 0) == nil
	}
	for _, n := range names {
		if n[0] < '0' || n[0] > '9' {
			continue
		}
		state, pg, ok := procStat(n)
		if ok && pg == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// procStat reads the state and process group of /proc/<pid>.
func procStat(pid string) (state byte, pgrp int, ok bool) {
	st, ok := readStat(pid)
	return st.state, st.pgrp, ok
}

// stat is what the harness reads of /proc/<pid>/stat.
type stat struct {
	state byte
	pgrp  int
	start uint64 // clock ticks since boot
}

func readStat(pid string) (stat, bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return stat{}, false
	}
	// pid (comm) state ppid pgrp … starttime (field 22); comm may contain
	// spaces and ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return stat{}, false
	}
	f := bytes.Fields(b[i+2:])
	if len(f) < 20 {
		return stat{}, false
	}
	pg, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return stat{}, false
	}
	start, err := strconv.ParseUint(string(f[19]), 10, 64)
	if err != nil {
		return stat{}, false
	}
	return stat{state: f[0][0], pgrp: pg, start: start}, true
}
