package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Sandbox names an OS sandbox backend.
type Sandbox string

// The sandbox backends. The zero value means [SandboxNone].
const (
	// SandboxAuto picks the best available backend: bwrap, else landlock,
	// else none (reported in [Result.SandboxNote]). bwrap comes first also
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
	// SandboxNone runs the command without an OS sandbox.
	SandboxNone Sandbox = "none"
)

// ParseSandbox parses auto, bwrap, landlock or none ("" is none).
func ParseSandbox(s string) (Sandbox, error) {
	switch Sandbox(s) {
	case SandboxAuto, SandboxBwrap, SandboxLandlock, SandboxNone:
		return Sandbox(s), nil
	case "":
		return SandboxNone, nil
	}
	return "", fmt.Errorf("unknown sandbox %q (want auto, bwrap, landlock or none)", s)
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
}

// resolveSandbox checks availability once, at New.
func resolveSandbox(mode Sandbox, allowNet bool, pathEnv string) (sandboxPlan, error) {
	switch mode {
	case "", SandboxNone:
		return sandboxPlan{backend: SandboxNone}, nil
	case SandboxBwrap:
		p, err := bwrapAvailable(pathEnv)
		if err != nil {
			return sandboxPlan{}, &SandboxUnavailableError{Backend: SandboxBwrap, Reason: err.Error()}
		}
		return sandboxPlan{backend: SandboxBwrap, bwrap: p}, nil
	case SandboxLandlock:
		self, err := landlockAvailable(allowNet)
		if err != nil {
			return sandboxPlan{}, &SandboxUnavailableError{Backend: SandboxLandlock, Reason: err.Error()}
		}
		return sandboxPlan{backend: SandboxLandlock, self: self}, nil
	case SandboxAuto:
		p, berr := bwrapAvailable(pathEnv)
		if berr == nil {
			return sandboxPlan{backend: SandboxBwrap, bwrap: p}, nil
		}
		self, lerr := landlockAvailable(allowNet)
		if lerr == nil {
			return sandboxPlan{backend: SandboxLandlock, self: self, note: "auto: bwrap unavailable (" + berr.Error() + ")"}, nil
		}
		return sandboxPlan{backend: SandboxNone, note: fmt.Sprintf("auto: no sandbox available (bwrap: %v; landlock: %v)", berr, lerr)}, nil
	}
	return sandboxPlan{}, fmt.Errorf("unknown sandbox %q", mode)
}

var bwrapProbe sync.Map // bwrap path → error (nil when it works)

// bwrapAvailable finds bwrap on the child's PATH and checks once that it
// can set up the namespaces we use.
func bwrapAvailable(pathEnv string) (string, error) {
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

// landlockAvailable checks the kernel's Landlock ABI and finds our own
// executable, which re-execs as the sandbox helper.
func landlockAvailable(allowNet bool) (string, error) {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return "", fmt.Errorf("the kernel does not support Landlock (%v)", err)
	}
	if !allowNet && abi < 4 {
		return "", fmt.Errorf("the kernel's Landlock ABI v%d cannot restrict TCP (needs v4, Linux 6.7)", abi)
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find own executable to re-exec: %v", err)
	}
	return self, nil
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
