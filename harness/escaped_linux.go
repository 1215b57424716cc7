package harness

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// escapeScanSupported: /proc lists every process with its environment.
const escapeScanSupported = true

const (
	sigTerm = unix.SIGTERM
	sigKill = unix.SIGKILL
)

// markedProcesses lists the live (not zombie) processes other than this
// one, started at or after since (in /proc's clock ticks since boot; 0:
// any), whose initial environment holds the entry marker. Processes of
// other users, whose environment is unreadable, are not listed.
func markedProcesses(marker string, since uint64) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []int
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid == self {
			continue
		}
		// The stat line first: cheaper to read than the environment, and
		// it rules out every process older than the run.
		st, ok := readStat(n)
		if !ok || st.state == 'Z' || st.state == 'X' || st.start < since || !hasMarker(pid, marker) {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// processStart is when pid started, in /proc's clock ticks since boot (0
// when unknown).
func processStart(pid int) uint64 {
	st, _ := readStat(strconv.Itoa(pid))
	return st.start
}

// hasMarker reports whether pid's environment holds the entry marker.
func hasMarker(pid int, marker string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		if string(kv) == marker {
			return true
		}
	}
	return false
}

// processArgv is pid's command line.
func processArgv(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// signalMarked sends sig to pid if it still carries marker. A pidfd pins
// the process between the check and the signal, so a pid reused by an
// unrelated process in between is never signalled.
func signalMarked(pid int, marker string, sig unix.Signal) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		// No pidfd (Linux < 5.3): check, then kill; the window is tiny.
		if hasMarker(pid, marker) {
			unix.Kill(pid, sig) //nolint:errcheck // ESRCH: gone; EPERM: reported as not killed
		}
		return
	}
	defer unix.Close(fd)
	if hasMarker(pid, marker) {
		unix.PidfdSendSignal(fd, sig, nil, 0) //nolint:errcheck // as above
	}
}
