package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// runProbe runs the contract probe under plan's backend, set up exactly as
// a command would be (bwrapArgs, the Landlock helper), with a scratch
// directory as the workspace.
func runProbe(plan sandboxPlan, allowNet bool) error {
	dir, err := os.MkdirTemp("", "rivumi-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	hidden := hiddenPaths()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	switch plan.backend {
	case SandboxBwrap:
		spec, _ := json.Marshal(probeSpec{AllowNet: allowNet, Hidden: hidden, Visible: []string{dir, plan.self}})
		filter, err := seccompFilterFile(allowNet)
		if err != nil {
			return err
		}
		defer filter.Close()
		cmd := exec.CommandContext(ctx, plan.bwrap,
			bwrapArgs(plan.self, []string{plan.self, probeArg, string(spec)}, dir, []string{dir}, nil, hidden, allowNet)...)
		cmd.Env = []string{landlockEnv + "=" + probeEnvValue, "PATH=" + defaultPATH}
		cmd.ExtraFiles = []*os.File{filter}
		out, err := cmd.CombinedOutput()
		if strings.TrimSpace(string(out)) != "ok" {
			return fmt.Errorf("bwrap probe: %v: %s", err, bytesTrim(out))
		}
		return nil
	case SandboxLandlock:
		spec, _ := json.Marshal(landlockSpec{Probe: true, Writable: []string{dir}, Hidden: hidden, AllowNet: allowNet})
		r, w, err := os.Pipe()
		if err != nil {
			return err
		}
		defer r.Close()
		cmd := exec.CommandContext(ctx, plan.self, landlockArg, string(spec))
		cmd.Env = []string{landlockEnv + "=" + landlockEnvValue, "PATH=" + defaultPATH}
		cmd.ExtraFiles = []*os.File{w}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			w.Close()
			return err
		}
		w.Close()
		b, _ := io.ReadAll(io.LimitReader(r, 4096))
		err = cmd.Wait()
		if string(b) != statusReady+"ok\n" {
			msg := strings.TrimSpace(strings.TrimPrefix(string(b), statusReady))
			if msg == "" {
				msg = "the helper did not answer (main must call harness.MaybeRunSandboxChild first)"
			}
			return fmt.Errorf("landlock probe: %v: %s", err, msg)
		}
		return nil
	}
	return fmt.Errorf("no probe for %s", plan.backend)
}

// seccompFilterFile returns a pipe's read end holding the contract's
// seccomp program, for bwrap's --seccomp.
func seccompFilterFile(allowNet bool) (*os.File, error) {
	b := contractFilterBytes(allowNet)
	if len(b) == 0 {
		return nil, errNoContractFilter
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if _, err := w.Write(b); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// trustedBinary reports why fi is not a binary to trust: not a regular
// file, not owned by root, or writable by group or others.
func trustedBinary(fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Errorf("not a regular file")
	case !ok || st.Uid != 0:
		return fmt.Errorf("not owned by root")
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("writable by group or others (%v)", fi.Mode().Perm())
	}
	return nil
}

// landlockABI is the kernel's Landlock ABI version (0: none).
func landlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}
