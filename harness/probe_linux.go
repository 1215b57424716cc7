package harness

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// The contract probe run inside bubblewrap: [self, probeArg, spec-json]
// with landlockEnv=probeEnvValue. It writes "ok\n" or "error: …\n" to
// stdout and exits 0 or 1.
const (
	probeArg      = "__rivumi_contract_probe__"
	probeEnvValue = "probe-v1"
)

// probeSpec is what the contract probe checks.
type probeSpec struct {
	AllowNet bool     `json:"allow_net"`
	Hidden   []string `json:"hidden"`
	// Visible are the paths bound into hidden directories on purpose (the
	// workspace, the run directory, the program): their ancestors may be
	// listed there.
	Visible []string `json:"visible"`
}

func runProbeChild(arg string) {
	runtime.LockOSThread()
	var spec probeSpec
	err := json.Unmarshal([]byte(arg), &spec)
	if err == nil {
		err = probeContract(spec)
	}
	if err != nil {
		fmt.Printf("error: %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		os.Exit(1)
	}
	fmt.Println("ok")
	os.Exit(0)
}

// probeContract checks, from inside a sandbox, what the contract promises
// and a broken backend would not hold: no capability, a remount of / and a
// new user namespace refused, no unix or netlink socket (and no IP socket
// unless network is allowed) while socketpair works, and nothing of the
// hidden directories readable but the paths bound there on purpose.
func probeContract(spec probeSpec) error {
	var errs []error
	if caps, err := capsOfSelf(); err != nil {
		errs = append(errs, err)
	} else if caps != "" {
		errs = append(errs, fmt.Errorf("capabilities held: %s", caps))
	}
	if err := unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_BIND, ""); err == nil {
		errs = append(errs, errors.New("remounting / succeeded"))
	}
	if err := unix.Unshare(unix.CLONE_NEWUSER | unix.CLONE_NEWNS); err == nil {
		errs = append(errs, errors.New("unshare of new namespaces succeeded"))
	}
	families := []struct {
		name   string
		family int
		open   bool
	}{
		{"unix", unix.AF_UNIX, false},
		{"netlink", unix.AF_NETLINK, false},
		{"inet", unix.AF_INET, spec.AllowNet},
		{"inet6", unix.AF_INET6, spec.AllowNet},
	}
	for _, f := range families {
		typ := unix.SOCK_STREAM
		if f.family == unix.AF_NETLINK {
			typ = unix.SOCK_RAW
		}
		fd, err := unix.Socket(f.family, typ|unix.SOCK_CLOEXEC, 0)
		if err == nil {
			unix.Close(fd)
			if !f.open {
				errs = append(errs, fmt.Errorf("a %s socket could be made", f.name))
			}
		}
	}
	if fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0); err != nil {
		errs = append(errs, fmt.Errorf("socketpair: %w", err))
	} else {
		unix.Close(fds[0])
		unix.Close(fds[1])
	}
	for _, h := range spec.Hidden {
		ents, err := os.ReadDir(h)
		if err != nil {
			continue
		}
		for _, e := range ents {
			p := filepath.Join(h, e.Name())
			if !slices.ContainsFunc(spec.Visible, func(v string) bool { return v == p || isUnder(v, p) }) {
				errs = append(errs, fmt.Errorf("%s is readable", p))
				break
			}
		}
	}
	return errors.Join(errs...)
}

// capsOfSelf returns the non-empty capability sets of this process as
// /proc shows them ("" when it holds none). The bounding set counts only
// for uid 0, which regains it on exec; another user with no new
// privileges cannot.
func capsOfSelf() (string, error) {
	f, err := os.Open("/proc/thread-self/status")
	if err != nil {
		return "", err
	}
	defer f.Close()
	var held []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), ":")
		val = strings.TrimSpace(val)
		set := name == "CapInh" || name == "CapPrm" || name == "CapEff" || name == "CapAmb" ||
			(name == "CapBnd" && os.Geteuid() == 0)
		if ok && set &&
			strings.Trim(val, "0") != "" {
			held = append(held, name+"="+val)
		}
	}
	return strings.Join(held, " "), sc.Err()
}
