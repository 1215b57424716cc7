package harness

import (
	"fmt"
	"strings"
	"time"
)

// RunMarkerEnv is the variable the harness sets in every command's
// environment to the run's id. Processes that leave the command's process
// group (setsid, setpgid) still carry it, which is how the harness finds
// them when the command is over (see [Result.Escaped]).
const RunMarkerEnv = "RIVUMI_RUN_ID"

// EscapedProcess is a process of a run that was still alive when the
// command was over, outside its process group.
type EscapedProcess struct {
	PID  int
	Argv []string // from /proc/PID/cmdline, as the process shows it
	// Killed reports that the process was gone once the harness had
	// signalled it (SIGTERM, the grace period, SIGKILL); false means it
	// could not be stopped (a setuid program, say) and still runs.
	Killed bool
}

// Confirming that no escaped process is left (see reapEscaped).
const (
	confirmScans = 3
	confirmPause = 20 * time.Millisecond
)

// reapEscaped finds the live processes started since the run's leader
// (see markedProcesses) whose environment carries marker (NAME=VALUE),
// sends them SIGTERM, waits up to grace for them to go,
// then SIGKILLs what is left (new ones found meanwhile included), and
// reports each. Processes that go on their own within settle (a PID
// namespace being torn down) are not counted. It returns nil where
// processes cannot be scanned (see escapeScanSupported).
func reapEscaped(marker string, since uint64, grace, settle time.Duration) []EscapedProcess {
	if !escapeScanSupported {
		return nil
	}
	for end := time.Now().Add(settle); time.Now().Before(end) && len(markedProcesses(marker, since)) > 0; {
		time.Sleep(5 * time.Millisecond)
	}
	found := map[int]*EscapedProcess{}
	var order []int
	scan := func() []int {
		pids := markedProcesses(marker, since)
		for _, pid := range pids {
			if found[pid] == nil {
				found[pid] = &EscapedProcess{PID: pid, Argv: processArgv(pid)}
				order = append(order, pid)
			}
		}
		return pids
	}
	// A process caught between fork and exec (or in execve) may not show
	// its environment to one scan: a scan that finds none is confirmed by
	// another a moment later, up to confirmScans times.
	pids := scan()
	termed := map[int]bool{}
	for confirm := 0; confirm < confirmScans; confirm++ {
		if len(pids) == 0 {
			time.Sleep(confirmPause)
			if pids = scan(); len(pids) == 0 {
				break
			}
		}
		deadline := time.Now().Add(grace)
		for len(pids) > 0 && time.Now().Before(deadline) {
			for _, pid := range pids {
				if !termed[pid] {
					signalMarked(pid, marker, sigTerm)
					termed[pid] = true
				}
			}
			time.Sleep(10 * time.Millisecond)
			pids = scan()
		}
		for round := 0; len(pids) > 0 && round < 20; round++ {
			for _, pid := range pids {
				signalMarked(pid, marker, sigKill)
			}
			time.Sleep(10 * time.Millisecond)
			pids = scan()
		}
	}
	if len(order) == 0 {
		return nil
	}
	alive := map[int]bool{}
	for _, pid := range pids {
		alive[pid] = true
	}
	out := make([]EscapedProcess, 0, len(order))
	for _, pid := range order {
		p := found[pid]
		p.Killed = !alive[pid]
		out = append(out, *p)
	}
	return out
}

// DescribeEscaped says, for people, what became of a run's escaped
// processes ("" for none).
func DescribeEscaped(ps []EscapedProcess) string {
	if len(ps) == 0 {
		return ""
	}
	var alive []string
	for _, p := range ps {
		if !p.Killed {
			alive = append(alive, fmt.Sprintf("%d (%s)", p.PID, strings.Join(p.Argv, " ")))
		}
	}
	what := fmt.Sprintf("%d processes of the run outlived it", len(ps))
	if len(ps) == 1 {
		what = "1 process of the run outlived it"
	}
	msg := what + " outside its process group (setsid or setpgid)"
	if len(alive) == 0 {
		return msg + "; killed"
	}
	return fmt.Sprintf("%s; killed %d, still running: %s", msg, len(ps)-len(alive), strings.Join(alive, ", "))
}
