package execgate

// Exec is one execve or execveat the gate decides: the calling process
// and its parent (0 when it could not be read), the program path as given
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

// Decision is what the gate answered for one exec.
type Decision struct {
	Exec
	Allowed bool
	Reason  string
}
