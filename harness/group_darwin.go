package harness

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// sZomb is a zombie's p_stat (<sys/proc.h>).
const sZomb = 5

// groupAlive reports whether any live (not zombie) process is in process
// group pgid, from the kernel's process table (sysctl kern.proc.pgrp).
func groupAlive(pgid int) bool {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgid)
	if err != nil {
		return syscall.Kill(-pgid, 0) == nil
	}
	for _, p := range procs {
		if p.Proc.P_stat != sZomb {
			return true
		}
	}
	return false
}
