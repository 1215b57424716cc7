//go:build unix

package harness_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/verdict"
)

// helperArg marks the test binary re-exec'd as a child command. The
// harness passes no test-controlled environment, so helpers take
// everything from argv.
const helperArg = "rivumi-test-helper"

func TestMain(m *testing.M) {
	harness.MaybeRunSandboxChild()
	if len(os.Args) > 2 && os.Args[1] == helperArg {
		os.Exit(runHelper(os.Args[2], os.Args[3:]))
	}
	os.Exit(m.Run())
}

// helper returns the argv running helper cmd with args.
func helper(t testing.TB, cmd string, args ...string) []string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{self, helperArg, cmd}, args...)
}

// pattern is the byte at offset i of the "out" helper's stream.
func pattern(i int64) byte { return byte('a' + i%23) }

func runHelper(cmd string, args []string) int {
	switch cmd {
	case "out": // out N: write N patterned bytes to stdout
		n, _ := strconv.ParseInt(args[0], 10, 64)
		buf := make([]byte, 1<<20)
		for off := int64(0); off < n; {
			k := min(int64(len(buf)), n-off)
			for i := range k {
				buf[i] = pattern(off + i)
			}
			if _, err := os.Stdout.Write(buf[:k]); err != nil {
				return 1
			}
			off += k
		}
		return 0
	case "write": // write PATH
		if err := os.WriteFile(args[0], []byte("x"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		return 0
	case "dial": // dial ADDR
		c, err := net.DialTimeout("tcp", args[0], 2*time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		c.Close()
		return 0
	case "dial-mptcp":
		d := net.Dialer{Timeout: 2 * time.Second}
		d.SetMultipathTCP(true)
		c, err := d.Dial("tcp", args[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		c.Close()
		return 0
	case "udp": // udp ADDR: send one datagram
		c, err := net.Dial("udp", args[0])
		if err == nil {
			_, err = c.Write([]byte("ping"))
			c.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		return 0
	case "ignore-term": // ignore-term PIDFILE N TOKEN: N grandchildren, all ignoring SIGTERM, holding the pipes
		signal.Ignore(syscall.SIGTERM)
		n, _ := strconv.Atoi(args[1])
		pids := []string{strconv.Itoa(os.Getpid())}
		for range n {
			c := exec.Command(os.Args[0], helperArg, "hold", args[2])
			c.Stdout, c.Stderr = os.Stdout, os.Stderr
			if err := c.Start(); err != nil {
				return 1
			}
			pids = append(pids, strconv.Itoa(c.Process.Pid))
		}
		if err := os.WriteFile(args[0], []byte(strings.Join(pids, "\n")), 0o644); err != nil {
			return 1
		}
		fmt.Println("started")
		select {}
	case "hold": // hold TOKEN
		signal.Ignore(syscall.SIGTERM)
		time.Sleep(time.Hour)
		return 0
	case "escape": // escape PIDFILE TOKEN: a grandchild in its own session, with an empty environment (no run marker), keeps stdout open
		c := exec.Command(os.Args[0], helperArg, "hold", args[1])
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		c.Env = []string{}
		if err := c.Start(); err != nil {
			return 1
		}
		os.WriteFile(args[0], []byte(strconv.Itoa(c.Process.Pid)), 0o644)
		return 0
	case "daemonize": // daemonize PIDFILE N exit|sleep TOKEN: N double-forked setsid grandchildren, then exit 0 or sleep
		n, _ := strconv.Atoi(args[1])
		var mids []*exec.Cmd
		for range n {
			c := exec.Command(os.Args[0], helperArg, "daemon-mid", args[0], args[3])
			c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if err := c.Start(); err != nil {
				return 1
			}
			mids = append(mids, c)
		}
		for _, c := range mids {
			if err := c.Wait(); err != nil {
				return 1
			}
		}
		if args[2] == "sleep" {
			time.Sleep(time.Hour)
		}
		return 0
	case "daemon-mid": // daemon-mid PIDFILE TOKEN: start a grandchild, record its pid, exit
		c := exec.Command(os.Args[0], helperArg, "hold", args[1])
		if err := c.Start(); err != nil {
			return 1
		}
		f, err := os.OpenFile(args[0], os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return 1
		}
		fmt.Fprintln(f, c.Process.Pid)
		f.Close()
		return 0
	case "attack": // attack NAME ARGS…: exit 0 when the attack worked (a hole), 3 when it was refused
		if err := attack(args[0], args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		return 0
	case "sleep":
		d, _ := time.ParseDuration(args[0])
		time.Sleep(d)
		return 0
	case "exit":
		n, _ := strconv.Atoi(args[0])
		return n
	}
	fmt.Fprintln(os.Stderr, "unknown helper", cmd)
	return 2
}

// gone reports whether pid no longer runs: it does not exist, or it is a
// zombie (exited; some container inits never reap orphans).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		// No /proc (macOS): kill(2) found it, so it is there (zombies
		// included).
		_, noProc := os.Stat("/proc/self")
		return noProc == nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// liveWithToken lists live processes whose command line contains token.
func liveWithToken(token string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(b), token) || gone(pid) {
			continue
		}
		out = append(out, pid)
	}
	return out
}

func equalGrants(a, b []verdict.Grant) bool {
	return slices.EqualFunc(a, b, func(x, y verdict.Grant) bool {
		return slices.Equal(x.Prefix, y.Prefix) && slices.Equal(x.Rules, y.Rules)
	})
}
