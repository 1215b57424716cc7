package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// The Landlock helper protocol: the parent runs its own executable as
// [self, landlockArg, spec-json] with landlockEnv=landlockEnvValue in the
// environment and a status pipe as fd 3. The child writes "ready\n" after
// restricting itself, then execs the target; fd 3 is close-on-exec, so
// the parent reads EOF once the target runs. Any failure is written as
// "error: …\n" and the child exits 126 without running the target.
const (
	landlockArg      = "__rivumi_landlock_child__"
	landlockEnv      = "RIVUMI_SANDBOX_CHILD"
	landlockEnvValue = "landlock-v1"
	statusFD         = 3
	statusReady      = "ready\n"
)

// MaybeRunSandboxChild must be the first call in main of every program
// that uses the harness with [SandboxLandlock] (including tests, via
// TestMain). In an ordinary process it returns at once. In the Landlock
// helper process it restricts itself and execs the target: it never
// returns.
func MaybeRunSandboxChild() {
	if len(os.Args) != 3 || os.Args[1] != landlockArg || os.Getenv(landlockEnv) != landlockEnvValue {
		return
	}
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
	if len(spec.Argv) == 0 {
		fail("empty argv")
	}
	if err := restrictLandlock(spec); err != nil {
		fail("%v", err)
	}
	// The last identity check, already inside the sandbox.
	now, err := identify(spec.Path)
	if err != nil || !now.same(spec.program()) {
		fail("%s changed between grading and exec", spec.Path)
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, landlockEnv+"=") })
	if _, err := status.WriteString(statusReady); err != nil {
		fail("status pipe: %v", err)
	}
	err = syscall.Exec(spec.Path, spec.Argv, env)
	fail("exec %s: %v", spec.Path, err)
}

func restrictLandlock(spec landlockSpec) error {
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWDirs(spec.Writable...).WithRefer(),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/tty").IgnoreIfMissing(),
	}
	// The newest configuration this library knows, downgraded to what the
	// kernel supports for file system and scoping rules.
	cfg := landlock.V7.BestEffort()
	if spec.AllowNet {
		if err := cfg.RestrictPaths(rules...); err != nil {
			return fmt.Errorf("landlock paths: %w", err)
		}
	} else {
		// TCP must really be restricted: no best effort for it.
		if err := landlock.V4.RestrictNet(); err != nil {
			return fmt.Errorf("landlock network: %w", err)
		}
		if err := cfg.RestrictPaths(rules...); err != nil {
			return fmt.Errorf("landlock paths: %w", err)
		}
		// Landlock covers TCP only: refuse UDP, raw and MPTCP sockets too
		// where we can.
		if seccompAvailable && !spec.NoSeccomp {
			if err := denyIPSockets(); err != nil {
				return err
			}
		}
	}
	// Abstract unix sockets and signals to processes outside the sandbox
	// (ABI v6+; skipped on older kernels).
	if err := cfg.RestrictScoped(); err != nil {
		return fmt.Errorf("landlock scope: %w", err)
	}
	return nil
}
