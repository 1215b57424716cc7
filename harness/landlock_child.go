package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// The Landlock helper protocol: the parent runs its own executable as
// [self, landlockArg, spec-json] with landlockEnv=landlockEnvValue in the
// environment and a status pipe as fd 3. The child drops every
// capability, restricts itself (Landlock, then the contract's seccomp
// filter) and writes "ready\n"; then it execs the target (fd 3 is
// close-on-exec, so the parent reads EOF once the target runs) or, with
// [landlockSpec.Reap], starts the target as its child, closes fd 3, and
// stays as the target's parent and subreaper (see reapChild). Any failure
// is written as "error: …\n" and the child exits 126 without running the
// target. With [landlockSpec.Probe] the child checks the contract instead
// of running a target and writes "ready\n" then "ok\n" or "error: …\n".
const (
	landlockArg      = "__rivumi_landlock_child__"
	landlockEnv      = "RIVUMI_SANDBOX_CHILD"
	landlockEnvValue = "landlock-v1"
	statusFD         = 3
	statusReady      = "ready\n"
)

// MaybeRunSandboxChild must be the first call in main of every program
// that uses the harness with [SandboxLandlock] or [SandboxBwrap] (including
// tests, via TestMain): the Landlock helper and the contract probe run as
// this program. In an ordinary process it returns at once. In a helper
// process it restricts itself and runs the target or the probe: it never
// returns.
func MaybeRunSandboxChild() {
	if len(os.Args) == 3 && os.Args[1] == probeArg && os.Getenv(landlockEnv) == probeEnvValue {
		runProbeChild(os.Args[2])
	}
	if len(os.Args) != 3 || os.Args[1] != landlockArg || os.Getenv(landlockEnv) != landlockEnvValue {
		return
	}
	// Capabilities, secure bits and the exec are per thread: all of it
	// happens on this one.
	runtime.LockOSThread()
	status := os.NewFile(statusFD, "status")
	fail := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if status != nil {
			fmt.Fprintf(status, "error: %s\n", strings.ReplaceAll(msg, "\n", " "))
		}
		fmt.Fprintf(os.Stderr, "rivumi: landlock sandbox: %s\n", msg)
		os.Exit(126)
	}
	if status == nil {
		fail("no status pipe")
	}
	syscall.CloseOnExec(statusFD)
	var spec landlockSpec
	if err := json.Unmarshal([]byte(os.Args[2]), &spec); err != nil {
		fail("bad spec: %v", err)
	}
	if len(spec.Argv) == 0 && !spec.Probe {
		fail("empty argv")
	}
	if err := dropCapabilities(); err != nil {
		fail("%v", err)
	}
	if err := restrictLandlock(spec); err != nil {
		fail("%v", err)
	}
	if spec.Probe {
		status.WriteString(statusReady) //nolint:errcheck
		if err := probeContract(probeSpec{AllowNet: spec.AllowNet, Hidden: spec.Hidden}); err != nil {
			fail("contract probe: %v", err)
		}
		status.WriteString("ok\n") //nolint:errcheck
		os.Exit(0)
	}
	// The last identity check, already inside the sandbox.
	now, err := identify(spec.Path)
	if err != nil || !now.same(spec.program()) {
		fail("%s changed between grading and exec", spec.Path)
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, landlockEnv+"=") })
	if spec.Gate {
		// Last, so that every exec from here on (the target's own
		// included) is decided by the parent.
		if err := installGate(); err != nil {
			fail("exec gate: %v", err)
		}
	}
	if spec.Reap {
		os.Exit(reapChild(spec, env, status, fail))
	}
	if _, err := status.WriteString(statusReady); err != nil {
		fail("status pipe: %v", err)
	}
	err = syscall.Exec(spec.Path, spec.Argv, env)
	fail("exec %s: %v", spec.Path, err)
}

// restrictLandlock confines the calling process: reads everywhere but
// under spec.Hidden, reads and writes in spec.Writable, the program itself
// readable and executable, no TCP unless allowed, no signals to or abstract
// sockets of processes outside (ABI v6+), then the contract's seccomp
// filter (unless spec.NoSeccomp).
func restrictLandlock(spec landlockSpec) error {
	readable := readableRoots("/", spec.Hidden, spec.Writable)
	rules := []landlock.Rule{
		landlock.RODirs(readable.dirs...),
		landlock.ROFiles(readable.files...),
		landlock.ROFiles(spec.Path).IgnoreIfMissing(),
		landlock.RODirs(spec.ReadOnly...).IgnoreIfMissing(),
		landlock.RWDirs(spec.Writable...).WithRefer(),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/tty").IgnoreIfMissing(),
	}
	// The newest configuration this library knows, downgraded to what the
	// kernel supports for file system and scoping rules: abstract unix
	// sockets and signals to processes outside the sandbox (ABI v6+).
	//
	// Paths, TCP and scopes in one domain: a second domain (TCP or scopes
	// alone) would deny every rename or link into another directory —
	// Landlock refuses reparenting in any domain that does not grant
	// REFER, handled or not — and mv across directories would fail with
	// EXDEV.
	cfg := landlock.V7.BestEffort()
	if spec.AllowNet {
		cfg.HandledAccessNet = 0
	} else if abi, err := llsyscall.LandlockGetABIVersion(); err != nil || abi < 4 {
		// TCP must really be restricted: no best effort for it.
		return fmt.Errorf("landlock network: the kernel's Landlock (ABI %d, %v) cannot restrict TCP (ABI 4)", abi, err)
	}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if spec.NoSeccomp {
		return nil
	}
	return installContractFilter(spec.AllowNet)
}

// roots are the directories and files granted for reading.
type roots struct{ dirs, files []string }

// readableRoots lists what to grant so that everything under dir is
// readable but the hidden paths: an entry that is hidden is left out, an
// entry above a hidden path is descended into (its own listing is then not
// readable), every other entry is granted whole. Entries that cannot be
// read are left out.
func readableRoots(dir string, hidden, writable []string) roots {
	var out roots
	ents, err := os.ReadDir(dir)
	if err != nil {
		return out
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		switch {
		case slices.Contains(hidden, p):
		case slices.ContainsFunc(hidden, func(h string) bool { return isUnder(h, p) }):
			sub := readableRoots(p, hidden, writable)
			out.dirs = append(out.dirs, sub.dirs...)
			out.files = append(out.files, sub.files...)
		case e.IsDir():
			out.dirs = append(out.dirs, p)
		case e.Type()&os.ModeSymlink != 0:
			// /bin -> usr/bin: granted through its target where that is
			// readable; a link into a hidden directory is not followed.
			if t, err := filepath.EvalSymlinks(p); err == nil && !slices.ContainsFunc(hidden, func(h string) bool {
				return t == h || isUnder(t, h)
			}) {
				if fi, err := os.Stat(t); err == nil && fi.IsDir() {
					out.dirs = append(out.dirs, p)
				} else if err == nil {
					out.files = append(out.files, p)
				}
			}
		default:
			out.files = append(out.files, p)
		}
	}
	return out
}
