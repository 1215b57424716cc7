package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sandbox names an OS sandbox backend.
type Sandbox string

// The sandbox backends. The zero value means [SandboxNone].
const (
	// SandboxAuto picks the first backend of the platform that holds the
	// contract ([Contract]): on Linux bwrap, else landlock; on macOS
	// seatbelt. With none available it fails like a named backend (exit
	// 126 in the CLI): it never means no sandbox.
	SandboxAuto Sandbox = "auto"
	// SandboxBwrap runs the command under bubblewrap in a new user
	// namespace with every capability dropped: / read-only, the homes and
	// /tmp hidden, the workspace and the run directory writable, new PID,
	// IPC, UTS, cgroup and (unless allowed) network namespaces, and the
	// contract's seccomp filter. Its PID namespace dies with the command.
	SandboxBwrap Sandbox = "bwrap"
	// SandboxLandlock confines the command with Landlock after dropping
	// every capability: read everywhere but the homes and /tmp, write only
	// in the workspace and the run directory, no signals to or abstract
	// unix sockets of processes outside (ABI v6+), and, unless network is
	// allowed, no TCP bind or connect (ABI v4+ required); the contract's
	// seccomp filter (linux/amd64 and linux/arm64) closes every other
	// socket family, new namespaces and the kernel interfaces of
	// [Contract]. The helper stays the command's parent and subreaper and
	// kills every descendant left when it ends.
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
	// detail names what enforces the backend, for the audit and the
	// bundle: bwrap's path, version and digest; the contract probed.
	detail string
	bwrap  string // path of bwrap
	self   string // path of our own executable, for landlock and the probe
	sbexec string // path of sandbox-exec, for seatbelt
}

// resolveSandbox checks availability once, at New. A backend is available
// only when it passes the contract probe (see [probeContract]). auto picks
// the first available backend of [autoOrder] and is never none: with none
// available it fails like a named backend would.
func resolveSandbox(mode Sandbox, allowNet bool) (sandboxPlan, error) {
	switch mode {
	case "", SandboxNone:
		return sandboxPlan{backend: SandboxNone, detail: "no sandbox (asked for by name)"}, nil
	case SandboxBwrap, SandboxLandlock, SandboxSeatbelt:
		plan, err := planFor(mode, allowNet)
		if err != nil {
			return sandboxPlan{}, &SandboxUnavailableError{Backend: mode, Reason: err.Error()}
		}
		return plan, nil
	case SandboxAuto:
		var skipped []string
		for _, b := range autoOrder {
			plan, err := planFor(b, allowNet)
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
		return sandboxPlan{}, &SandboxUnavailableError{Backend: SandboxAuto,
			Reason: strings.Join(skipped, "; ") + " (run with --sandbox none to run without one)"}
	}
	return sandboxPlan{}, fmt.Errorf("unknown sandbox %q", mode)
}

// planFor checks one backend.
func planFor(b Sandbox, allowNet bool) (sandboxPlan, error) {
	switch b {
	case SandboxBwrap:
		return bwrapAvailable(allowNet)
	case SandboxLandlock:
		self, err := landlockAvailable(allowNet)
		if err != nil {
			return sandboxPlan{}, err
		}
		plan := sandboxPlan{backend: b, self: self}
		if err := probeOnce(plan, allowNet); err != nil {
			return sandboxPlan{}, err
		}
		plan.detail = fmt.Sprintf("landlock ABI v%d + seccomp; %s", landlockABI(), contractProbed)
		return plan, nil
	case SandboxSeatbelt:
		p, err := seatbeltAvailable()
		return sandboxPlan{backend: b, sbexec: p, detail: "sandbox-exec " + p}, err
	}
	return sandboxPlan{}, fmt.Errorf("unknown sandbox %q", b)
}

// contractProbed is the detail of a backend that passed the probe.
const contractProbed = "contract " + ContractVersion + " probed"

// bwrapPaths are where bubblewrap is looked for, in order: system
// directories only, never the PATH (a stand-in earlier on PATH could run
// everything unsandboxed).
var bwrapPaths = []string{"/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap", "/usr/sbin/bwrap"}

// bwrapFound is one bwrap binary that may be trusted.
type bwrapFound struct {
	path, version, digest string
}

// findBwrap returns the first of bwrapPaths that is a regular file owned
// by root and not writable by group or others, with its version and
// SHA-256 digest.
func findBwrap() (bwrapFound, error) {
	if runtime.GOOS != "linux" {
		return bwrapFound{}, errors.New("bubblewrap is Linux only")
	}
	var why []string
	for _, p := range bwrapPaths {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if err := trustedBinary(fi); err != nil {
			why = append(why, p+": "+err.Error())
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			why = append(why, p+": "+err.Error())
			continue
		}
		sum := sha256.Sum256(b)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		out, _ := exec.CommandContext(ctx, p, "--version").Output()
		cancel()
		return bwrapFound{path: p, version: strings.TrimSpace(string(out)), digest: "sha256:" + hex.EncodeToString(sum[:])}, nil
	}
	if len(why) == 0 {
		return bwrapFound{}, fmt.Errorf("bwrap not found in %s", strings.Join(bwrapPaths, ", "))
	}
	return bwrapFound{}, fmt.Errorf("no trusted bwrap: %s", strings.Join(why, "; "))
}

var probes sync.Map // probeKey → error (nil when the backend passed)

type probeKey struct {
	backend  Sandbox
	path     string
	allowNet bool
}

// probeOnce runs the contract probe of plan once per process (per backend,
// binary and network setting).
func probeOnce(plan sandboxPlan, allowNet bool) error {
	key := probeKey{plan.backend, plan.bwrap + plan.self, allowNet}
	if v, ok := probes.Load(key); ok {
		if v != nil {
			return v.(error)
		}
		return nil
	}
	err := runProbe(plan, allowNet)
	if err != nil {
		err = fmt.Errorf("the sandbox does not hold its contract here: %w", err)
	}
	probes.Store(key, err)
	return err
}

// bwrapAvailable finds a trusted bwrap and checks that it holds the
// contract.
func bwrapAvailable(allowNet bool) (sandboxPlan, error) {
	found, err := findBwrap()
	if err != nil {
		return sandboxPlan{}, err
	}
	self, err := os.Executable()
	if err != nil {
		return sandboxPlan{}, fmt.Errorf("cannot find own executable for the contract probe: %v", err)
	}
	plan := sandboxPlan{backend: SandboxBwrap, bwrap: found.path, self: self}
	if err := probeOnce(plan, allowNet); err != nil {
		return sandboxPlan{}, err
	}
	plan.detail = fmt.Sprintf("%s (%s, %s); %s", found.path, found.version, found.digest, contractProbed)
	return plan, nil
}

func bytesTrim(b []byte) string {
	const max = 200
	if len(b) > max {
		b = b[:max]
	}
	return string(b)
}

// bwrapArgs returns bwrap's argv (after the bwrap path) to run prog with
// argv[1:] in dir: a new user namespace with every capability dropped,
// new PID, IPC, UTS, cgroup (where possible) and, unless allowed, network
// namespaces; / read-only; the hidden directories empty; the workspace and
// the run directory writable, readOnly bound read-only; the program
// read-only at its path; and the
// contract's seccomp filter read from fd 3.
func bwrapArgs(prog string, argv []string, dir string, writable, readOnly, hidden []string, allowNet bool) []string {
	args := []string{
		"--unshare-user", "--cap-drop", "ALL",
		"--die-with-parent", "--new-session",
		"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
	}
	if !allowNet {
		args = append(args, "--unshare-net")
	}
	args = append(args, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
	for _, h := range hidden {
		if fi, err := os.Lstat(h); err == nil && fi.IsDir() {
			args = append(args, "--tmpfs", h)
		}
	}
	// Parents before children, so that a read-only path inside a
	// writable directory (or the reverse) is mounted on top of it.
	type bind struct{ opt, path string }
	var binds []bind
	for _, r := range readOnly {
		binds = append(binds, bind{"--ro-bind-try", r})
	}
	for _, w := range writable {
		binds = append(binds, bind{"--bind", w})
	}
	slices.SortStableFunc(binds, func(a, b bind) int {
		return strings.Count(a.path, string(filepath.Separator)) - strings.Count(b.path, string(filepath.Separator))
	})
	for _, b := range binds {
		args = append(args, b.opt, b.path, b.path)
	}
	args = append(args,
		// The program itself, read-only at its path: visible even under a
		// hidden directory, and not rewritable from inside even in the
		// workspace.
		"--ro-bind", prog, prog,
		"--seccomp", strconv.Itoa(statusFD),
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
	// ReadOnly are granted for reading even inside Hidden.
	ReadOnly []string `json:"read_only,omitempty"`
	// Hidden are the directories the command may not read (the homes,
	// /tmp): everything else is readable, but the Writable directories
	// and the program itself, which are granted even inside them.
	Hidden   []string `json:"hidden"`
	AllowNet bool     `json:"allow_net"`
	// Reap keeps the helper as the command's parent and child subreaper:
	// it waits for the command, then kills every descendant left
	// (whatever its session, process group or environment).
	Reap bool `json:"reap,omitempty"`
	// Grace is how long the helper, told to stop (SIGTERM), waits for its
	// descendants before it kills them.
	Grace time.Duration `json:"grace,omitempty"`
	// Gate makes the helper install the exec gate's filter and send its
	// listener over fd 4 before the target runs.
	Gate bool `json:"gate,omitempty"`
	// Lifeline is the descriptor of a pipe's read end whose write end
	// only rivumi holds (0: none). With Reap, the helper kills every
	// descendant at once when it reads end of file: rivumi (and with it
	// the gate's supervisor) is gone, even by SIGKILL.
	Lifeline int `json:"lifeline,omitempty"`
	// Probe makes the helper check the contract (see probeContract) after
	// restricting itself instead of running the command.
	Probe bool `json:"probe,omitempty"`
	// NoSeccomp leaves out the seccomp filter, so tests can check
	// Landlock's own TCP rules.
	NoSeccomp bool `json:"no_seccomp,omitempty"`
}

func specFor(p program, argv []string, writable []string, allowNet bool) landlockSpec {
	return landlockSpec{Path: p.path, Argv: argv, Dev: p.dev, Ino: p.ino, Size: p.size, Mtime: p.mtimeNsec,
		Writable: writable, Hidden: hiddenPaths(), AllowNet: allowNet}
}

func (s landlockSpec) program() program {
	return program{path: filepath.Clean(s.Path), dev: s.Dev, ino: s.Ino, size: s.Size, mtimeNsec: s.Mtime}
}

// hiddenPaths are the directories a sandboxed command may not read: the
// homes (/root, /home and the harness user's own home wherever it is) and
// the shared /tmp. Each is an absolute clean path.
func hiddenPaths() []string {
	out := []string{"/root", "/home", "/tmp"}
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) {
		h = filepath.Clean(h)
		if h != "/" && !slices.ContainsFunc(out, func(d string) bool { return d == h || isUnder(h, d) }) {
			out = append(out, h)
		}
	}
	return out
}

// isUnder reports whether p is strictly below dir (both clean, absolute).
func isUnder(p, dir string) bool {
	return strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

var errNoContractFilter = errors.New("the sandbox contract's seccomp filter is not available on this architecture")
