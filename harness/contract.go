package harness

// ContractVersion names the sandbox contract below; audit entries and run
// bundles record it with the backend that held it.
const ContractVersion = "v1"

// BackendContract is what a process sandboxed by one backend may do. It
// is the one statement of the sandbox contract: docs/platforms.md renders
// it (a test fails when they differ), and the contract tests attack every
// Linux row as root and as an unprivileged user.
type BackendContract struct {
	Backend Sandbox
	// Read, Write and Exec: the file system.
	Read, Write, Exec string
	// Network: sockets the process may make or reach.
	Network string
	// Privilege: capabilities, namespaces and refused syscalls.
	Privilege string
	// Reaping: how every descendant ends with the command.
	Reaping string
	// Verified says where the row was verified.
	Verified string
}

// Contract lists the sandbox contract of every backend. Deny by default,
// the same on every backend where the kernel allows it; where a backend
// cannot, its row says so.
var Contract = []BackendContract{
	{
		Backend: SandboxBwrap,
		Read: "everything but /root, /home, /tmp and the user's home (empty there); " +
			"the workspace and the run directory are bound back",
		Write:   "the workspace and the run directory (TMPDIR and HOME are in it); / is read-only",
		Exec:    "any readable program; the graded program is bound read-only at its path",
		Network: "none: a new network namespace; no unix, netlink or packet sockets (seccomp); socketpair works; --allow-network: inet and inet6 only",
		Privilege: "a new user namespace with every capability dropped (bounding set included), no new privileges; " +
			"new PID, IPC, UTS and cgroup namespaces; seccomp refuses mount, umount, pivot_root, chroot, setns, unshare, " +
			"clone with namespace flags, keyctl, bpf, perf_event_open, ptrace, process_vm_*, module and kexec calls, " +
			"open_by_handle_at, userfaultfd and io_uring, and foreign-ABI syscalls",
		Reaping:  "the PID namespace: every process dies with the command (--die-with-parent)",
		Verified: "Linux 6.18, bubblewrap 0.8, as root and as an unprivileged user (contract tests, CI)",
	},
	{
		Backend: SandboxLandlock,
		Read: "everything but /root, /home, /tmp and the user's home (Landlock denies them); " +
			"the workspace, the run directory and the program are granted",
		Write:   "the workspace and the run directory (TMPDIR and HOME are in it)",
		Exec:    "any readable program",
		Network: "none: no unix, netlink, packet or IP sockets (seccomp), TCP bind/connect refused by Landlock (ABI v4+); socketpair works; --allow-network: inet and inet6 only",
		Privilege: "every capability dropped before the command runs (bounding set, ambient, SECBIT_NOROOT locked), no new privileges; " +
			"no signals to or abstract sockets of processes outside (ABI v6+); the same seccomp filter as bwrap " +
			"(so no new namespaces); no PID namespace",
		Reaping:  "rivumi's helper stays the command's parent and child subreaper and kills every descendant left when the command ends or is stopped, or at once when rivumi itself dies (a lifeline pipe), whatever its session or environment",
		Verified: "Linux 6.18, Landlock ABI 7, as root and as an unprivileged user (contract tests, CI)",
	},
	{
		Backend:   SandboxSeatbelt,
		Read:      "the system directories, the workspace, the run directory and the program; not the user's home",
		Write:     "the workspace and the run directory; the program never",
		Exec:      "programs in the readable directories",
		Network:   "none, unix sockets included; --allow-network: all",
		Privilege: "no capability model on macOS; the profile denies everything it does not list (process-info of others, mach lookups but the system's)",
		Reaping:   "the process group only: a process that calls setsid and drops the run's marker can outlive the run",
		Verified:  "the generated profile's golden tests only: nothing runs on a Mac here",
	},
	{
		Backend:   SandboxNone,
		Read:      "everything the user can read",
		Write:     "everything the user can write",
		Exec:      "everything",
		Network:   "everything",
		Privilege: "the user's own (as root: all of root's); used only when asked for by name, and recorded",
		Reaping:   "the process group, then processes carrying the run's environment marker: a process that calls setsid and drops the marker can outlive the run",
		Verified:  "not a wall",
	},
}
