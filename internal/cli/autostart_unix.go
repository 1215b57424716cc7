//go:build unix

package cli

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// privateDir checks that dir is a directory (not a link) owned by this
// user that no one else may enter: where a started server's socket may
// live.
func privateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("cannot read the owner of %s", dir)
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to uid %d, not to us (uid %d)", dir, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s has mode %04o; want 0700", dir, fi.Mode().Perm())
	}
	return nil
}

// autostartProblem says why no server may be started at sock (its
// directory existing), or nil.
func autostartProblem(sock string) error {
	if err := privateDir(filepath.Dir(sock)); err != nil {
		return err
	}
	if fi, err := os.Lstat(sock); err == nil {
		st, ok := fi.Sys().(*syscall.Stat_t)
		if fi.Mode()&os.ModeSocket == 0 || !ok || int(st.Uid) != os.Getuid() {
			return fmt.Errorf("%s exists and is not this user's socket", sock)
		}
	}
	return nil
}

// autostart starts `rivumi serve --socket=sock` in the background, unless
// a server answers there, another call is starting one (the lock file
// next to the socket is held), or the socket's directory or an existing
// socket is not this user's alone. It never waits for the server: the
// caller grades in-process meanwhile. The started server holds the lock
// (an inherited descriptor) until it listens, so that concurrent cold
// calls start one server; it exits after getenv's RIVUMI_SERVE_IDLE
// (default 30 minutes) without a request.
func autostart(exe, sock string, getenv func(string) string) error {
	dir := filepath.Dir(sock)
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.Mkdir(dir, 0o700); err != nil {
			return err
		}
	}
	if err := autostartProblem(sock); err != nil {
		return fmt.Errorf("not starting a server: %v", err)
	}
	lock, err := os.OpenFile(sock+".lock", os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close() // the child keeps its own copy
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil // another call is starting it
		}
		return err
	}
	if c, err := net.DialTimeout("unix", sock, 100*time.Millisecond); err == nil {
		c.Close()
		return nil // it came up meanwhile
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND | syscall.O_NOFOLLOW
	if fi, err := os.Lstat(startLog(sock)); err == nil && fi.Size() > maxStartLog {
		flags |= os.O_TRUNC
	}
	logf, err := os.OpenFile(startLog(sock), flags, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(exe, "serve", "--socket="+sock, "--audit", "off",
		"--idle-exit", serveIdle(getenv).String(), "--exit-when-replaced", "--start-lock-fd", "3")
	cmd.Dir = "/"
	cmd.Stderr = logf
	cmd.ExtraFiles = []*os.File{lock}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	fmt.Fprintf(logf, "rivumi hook: started rivumi serve (pid %s) on %s at %s\n", strconv.Itoa(cmd.Process.Pid), sock, time.Now().UTC().Format(time.RFC3339))
	return cmd.Process.Release()
}

// releaseStartLock closes the lock descriptor a starting hook handed to
// `rivumi serve --start-lock-fd`, once the server listens (or fails).
func releaseStartLock(fd int) {
	if fd > 2 {
		os.NewFile(uintptr(fd), "start-lock").Close()
	}
}

// serveIdleEnv is the idle time after which a started server exits (a Go
// duration; default [defaultServeIdle]).
const serveIdleEnv = "RIVUMI_SERVE_IDLE"

// serveIdle is the idle exit of a started server.
func serveIdle(getenv func(string) string) time.Duration {
	if d, err := time.ParseDuration(getenv(serveIdleEnv)); err == nil && d > 0 {
		return d
	}
	return defaultServeIdle
}

// startLog is where a started server's stderr goes: next to its socket.
func startLog(sock string) string { return sock + ".log" }

// maxStartLog bounds the log: past it, the next start truncates it.
const maxStartLog = 1 << 20
