package harness

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

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
