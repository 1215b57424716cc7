package harness

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// procGroup is the set of processes a command started, as the platform
// contains them: a new session and process group on unix, a job object
// on Windows. It is made right after Start and closed after the run.
type procGroup interface {
	// terminate asks every member to stop (SIGTERM; on Windows, where
	// there is no such request, it ends them).
	terminate()
	// kill ends every member (SIGKILL).
	kill()
	// alive reports whether any member still runs (zombies do not).
	alive() bool
	// close releases the group (on Windows, ending what is left).
	close()
}

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
	// A group of its own (see procGroup): on unix a new session, hence a
	// new process group with no controlling terminal, so the child can
	// neither prompt on /dev/tty nor push input into the user's terminal.
	prepareGroup(cmd)
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
	group, err := newProcGroup(cmd.Process)
	if err != nil {
		// The process runs but cannot be contained: stop it now.
		cmd.Process.Kill() //nolint:errcheck
		cmd.Wait()         //nolint:errcheck
		rOut.Close()
		rErr.Close()
		return out, fmt.Errorf("contain the process: %w", err)
	}
	defer group.close()
	leaderStart := processStart(cmd.Process.Pid) // the run's processes start no earlier

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
			group.terminate()
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
			group.kill()
			out.killedAfterGrace = true
			<-waited
		}
		grace.Stop()
	}
	out.duration = time.Since(start)
	out.state = cmd.ProcessState

	// The leader is reaped; its group id stays reserved while members
	// remain. Whatever is left of the group goes the same way.
	if group.alive() {
		out.stragglers = true
		term()
		deadline := termSent.Add(s.grace)
		for group.alive() && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if group.alive() {
			group.kill()
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
