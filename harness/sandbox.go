package harness

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Sandbox names an OS sandbox backend.
type Sandbox string

// The sandbox backends. The zero value means [SandboxNone].
const (
	// SandboxAuto picks the best available backend of the platform: on
	// Linux bwrap, else landlock; on macOS seatbelt; else none (reported in
	// [Result.SandboxNote]). Windows has no backend. bwrap comes first also
	// because it alone contains processes that leave the command's process
	// group: its PID namespace dies with the command (see [Result.Escaped]).
	SandboxAuto Sandbox = "auto"
	// SandboxBwrap runs the command under bubblewrap: / read-only, the
	// workspace and the run directory writable, a private /tmp, /dev and
	// /proc, new PID and IPC namespaces, no network unless allowed.
	SandboxBwrap Sandbox = "bwrap"
	// SandboxLandlock confines the command with Landlock: read everywhere,
	// write only in the workspace and the run directory, no signals to or
	// abstract unix sockets of processes outside (ABI v6+), and, unless
	// network is allowed, no TCP bind or connect (ABI v4+ required).
	// Landlock's network rules cover TCP only: UDP, raw sockets and
	// Multipath TCP are not Landlock's to restrict. On linux/amd64 and
	// linux/arm64 the harness therefore adds a seccomp filter that refuses
	// to create IPv4, IPv6 and packet sockets and io_uring instances and
	// refuses 32-bit and x32 syscalls (so 32-bit programs cannot run without
	// network); elsewhere only TCP is restricted. Use bwrap for full network
	// isolation.
	SandboxLandlock Sandbox = "landlock"
	// SandboxSeatbelt (macOS) runs the command under /usr/bin/sandbox-exec
	// with a profile generated for the run ([seatbeltProfile]): everything
	// denied but fork and exec, reads of the system directories, the
	// workspace, the run directory and the program, writes to the workspace
	// and the run directory (TMPDIR and HOME are in it) only, the program
	// itself never writable, and no network (unix sockets included) unless
	// allowed. sandbox-exec is deprecated by Apple but still ships with
	// macOS; a profile this macOS does not accept makes the backend
	// unavailable (it is tried when the harness starts).
	SandboxSeatbelt Sandbox = "seatbelt"
	// SandboxNone runs the command without an OS sandbox.
	SandboxNone Sandbox = "none"
)

// ParseSandbox parses auto, bwrap, landlock, seatbelt or none ("" is none).
func ParseSandbox(s string) (Sandbox, error) {
	switch Sandbox(s) {
	case SandboxAuto, SandboxBwrap, SandboxLandlock, SandboxSeatbelt, SandboxNone:
		return Sandbox(s), nil
	case "":
		return SandboxNone, nil
	}
	return "", fmt.Errorf("unknown sandbox %q (want auto, bwrap, landlock, seatbelt or none)", s)
}

// SandboxUnavailableError reports that a named sandbox backend cannot be
// used here. The harness never falls back to running unsandboxed; the CLI
// exits with code 126.
type SandboxUnavailableError struct {
	Backend Sandbox
	Reason  string
}

func (e *SandboxUnavailableError) Error() string {
	return fmt.Sprintf("sandbox %s is not available: %s", e.Backend, e.Reason)
}

// sandboxPlan is the resolved sandbox of a Harness.
type sandboxPlan struct {
	backend Sandbox
	note    string
	bwrap   string // path of bwrap
	self    string // path of our own executable, for landlock
	sbexec  string // path of sandbox-exec, for seatbelt
}

// resolveSandbox checks availability once, at New.
func resolveSandbox(mode Sandbox, allowNet bool, pathEnv string) (sandboxPlan, error) {
	switch mode {
	case "", SandboxNone:
		return sandboxPlan{backend: SandboxNone}, nil
	case SandboxBwrap, SandboxLandlock, SandboxSeatbelt:
		plan, err := planFor(mode, allowNet, pathEnv)
		if err != nil {
			return sandboxPlan{}, &SandboxUnavailableError{Backend: mode, Reason: err.Error()}
		}
		return plan, nil
	case SandboxAuto:
		var skipped []string
		for _, b := range autoOrder {
			plan, err := planFor(b, allowNet, pathEnv)
			if err == nil {
				if len(skipped) > 0 {
					plan.note = "auto: " + strings.Join(skipped, "; ")
				}
				return plan, nil
			}
			skipped = append(skipped, fmt.Sprintf("%s unavailable (%v)", b, err))
		}
		if len(skipped) == 0 {
			skipped = []string{"this platform has no sandbox backend"}
		}
		return sandboxPlan{backend: SandboxNone, note: "auto: no sandbox available: " + strings.Join(skipped, "; ")}, nil
	}
	return sandboxPlan{}, fmt.Errorf("unknown sandbox %q", mode)
}

// planFor checks one backend.
func planFor(b Sandbox, allowNet bool, pathEnv string) (sandboxPlan, error) {
	switch b {
	case SandboxBwrap:
		p, err := bwrapAvailable(pathEnv)
		return sandboxPlan{backend: b, bwrap: p}, err
	case SandboxLandlock:
		self, err := landlockAvailable(allowNet)
		return sandboxPlan{backend: b, self: self}, err
	case SandboxSeatbelt:
		p, err := seatbeltAvailable()
		return sandboxPlan{backend: b, sbexec: p}, err
	}
	return sandboxPlan{}, fmt.Errorf("unknown sandbox %q", b)
}

var bwrapProbe sync.Map // bwrap path → error (nil when it works)

// bwrapAvailable finds bwrap on the child's PATH and checks once that it
// can set up the namespaces we use.
func bwrapAvailable(pathEnv string) (string, error) {
	if runtime.GOOS != "linux" {
		return "", errors.New("bubblewrap is Linux only")
	}
	prog, err := resolveProgram("bwrap", "/", pathEnv)
	if err != nil {
		return "", errors.New("bwrap not found in PATH")
	}
	if v, ok := bwrapProbe.Load(prog.path); ok {
		if v != nil {
			return "", v.(error)
		}
		return prog.path, nil
	}
	truePath := "/bin/true"
	if p, err := resolveProgram("true", "/", defaultPATH); err == nil {
		truePath = p.path
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, prog.path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		"--tmpfs", "/tmp", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--die-with-parent",
		"--new-session", "--", truePath).CombinedOutput()
	var perr error
	if err != nil {
		perr = fmt.Errorf("bwrap does not work here: %v: %s", err, bytesTrim(out))
		bwrapProbe.Store(prog.path, perr)
		return "", perr
	}
	bwrapProbe.Store(prog.path, nil)
	return prog.path, nil
}

func bytesTrim(b []byte) string {
	const max = 200
	if len(b) > max {
		b = b[:max]
	}
	return string(b)
}

// bwrapArgs returns bwrap's argv (after the bwrap path) to run prog with
// argv[1:] in dir.
func bwrapArgs(prog string, argv []string, dir, workspace, runDir string, allowNet bool) []string {
	args := []string{
		"--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc",
	}
	if !allowNet {
		args = append(args, "--unshare-net")
	}
	args = append(args,
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
		"--bind", workspace, workspace,
		"--bind", runDir, runDir,
		// The program itself, read-only at its path: visible even under
		// /tmp, and not rewritable from inside even in the workspace.
		"--ro-bind", prog, prog,
		"--chdir", dir,
		"--", prog,
	)
	return append(args, argv[1:]...)
}

// landlockSpec is what the parent tells the Landlock helper child.
type landlockSpec struct {
	Path     string   `json:"path"`
	Argv     []string `json:"argv"`
	Dev      uint64   `json:"dev"`
	Ino      uint64   `json:"ino"`
	Size     int64    `json:"size"`
	Mtime    int64    `json:"mtime"`
	Writable []string `json:"writable"`
	AllowNet bool     `json:"allow_net"`
	// NoSeccomp leaves out the socket filter, so tests can check
	// Landlock's own TCP rules.
	NoSeccomp bool `json:"no_seccomp,omitempty"`
}

func specFor(p program, argv []string, writable []string, allowNet bool) landlockSpec {
	return landlockSpec{Path: p.path, Argv: argv, Dev: p.dev, Ino: p.ino, Size: p.size, Mtime: p.mtimeNsec,
		Writable: writable, AllowNet: allowNet}
}

func (s landlockSpec) program() program {
	return program{path: filepath.Clean(s.Path), dev: s.Dev, ino: s.Ino, size: s.Size, mtimeNsec: s.Mtime}
}
