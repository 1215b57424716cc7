package execgate

import "time"

// Exec is one execve or execveat the gate decides: the calling process
// and its parent (in a [Decision] only: read after the answer, 0 when the
// process was already gone), the program path as given
// (relative paths joined to the directory they are relative to), its argv,
// and the process's working directory.
type Exec struct {
	PID  int
	PPID int
	Path string
	Argv []string
	Dir  string
}

// Decide answers one exec: nil lets it run, an error refuses it (EPERM).
type Decide func(Exec) error

// Decision is what the gate answered for one exec, and how long the
// supervisor took from receiving it to answering (reading, deciding).
type Decision struct {
	Exec
	Allowed bool
	Reason  string
	Took    time.Duration
}
