package cli

import (
	"context"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/internal/gctune"
	"github.com/rivumi/rivumi/internal/hookrelay"
	"github.com/rivumi/rivumi/server"
)

func init() {
	register("serve", "serve verdicts over HTTP (loopback), a unix socket or stdio (JSON Lines)", runServe)
	describe("serve", "[--addr HOST:PORT] [--socket[=PATH]] [--stdio] [flags]", fmt.Sprintf(serveHelp, server.DefaultAddr, server.DefaultSocket()))
}

const serveHelp = `Serves verdicts: POST /v1/verdict {"command": …} or {"argv": […]} (plus
optional cwd, workspace, home, shell, grants), POST /v1/verdicts (an
array), GET /healthz, GET /metrics (Prometheus). With --stdio, each input
line is a request (or an array) and each output line its verdict(s).

Without --addr, --socket or --stdio it listens on %s (OPA's
default port, 8181, is left to OPA; rivumi-opa's is 8283).
--socket alone uses the socket the hook adapters look for (%s).
SIGHUP reloads the policy (a policy that fails to load leaves the old
one serving); SIGTERM and SIGINT shut down gracefully.`

// serveGCRoom is how far serve's heap grows above what survives a
// collection (see gctune): with 5–8 MiB live under load it means GOGC 150–240, and a peak
// RSS under 60 MiB (docs/performance.md).
const serveGCRoom = 12 << 20

// socketFlag is --socket (the default path) or --socket=PATH.
type socketFlag struct{ path string }

func (s *socketFlag) String() string { return s.path }
func (s *socketFlag) Set(v string) error {
	if v == "true" {
		v = server.DefaultSocket()
	}
	if v == "false" {
		v = ""
	}
	s.path = v
	return nil
}
func (s *socketFlag) IsBoolFlag() bool { return true }

// Type is what pflag shows of the value, which the flag may go without.
func (s *socketFlag) Type() string { return "string" }

// binaryReplaced returns a function reporting whether the file this
// process was started from is no longer the one at its path (an upgrade
// replaced or removed it).
func binaryReplaced() func() bool {
	exe, err := os.Executable()
	if err != nil {
		return func() bool { return false }
	}
	fi0, err := os.Stat(exe)
	if err != nil {
		return func() bool { return false }
	}
	return func() bool {
		fi, err := os.Stat(exe)
		return err != nil || !os.SameFile(fi0, fi) || fi.ModTime() != fi0.ModTime() || fi.Size() != fi0.Size()
	}
}

func runServe(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("serve", stdio)
	var pf policyFlags
	fs.Var(&pf.policyDirs, "policy", "directory of user Rego packs (package rivumi.user…); repeatable")
	addr := fs.String("addr", "", "listen for HTTP on `HOST:PORT` (default "+server.DefaultAddr+" when no other transport is named)")
	var sock socketFlag
	fs.Var(&sock, "socket", "listen on a unix socket: --socket (the default path) or --socket=`PATH`")
	stdioMode := fs.Bool("stdio", false, "answer JSON Lines on stdin/stdout instead of listening")
	auditFile := fs.String("audit", "", "decision log `FILE` (default $XDG_STATE_HOME/rivumi/audit.jsonl; off: none)")
	auditSync := fs.Bool("audit-sync", true, "fsync the decision log after each verdict")
	auditLoose := fs.Bool("audit-best-effort", false, "answer even when the decision log cannot be written (default: such answers are deny, HTTP 503)")
	maxBody := fs.Int64("max-body", server.DefaultMaxBody, "largest request body (or stdio line) in `bytes`")
	maxBatch := fs.Int("max-batch", server.DefaultMaxBatch, "most requests in one batch")
	idleExit := fs.Duration("idle-exit", 0, "stop after this long without a request (0: never; a server a hook starts uses "+defaultServeIdle.String()+")")
	whenReplaced := fs.Bool("exit-when-replaced", false, "stop when the rivumi binary this server runs is replaced on disk (a server a hook starts does)")
	startLock := fs.Int("start-lock-fd", -1, "(set by the hook that starts this server) close this inherited lock descriptor once listening")
	pf.registerTimeout(fs.FlagSet)
	evalTimeout := &pf.evalTimeout
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	// The starting hook's lock is released once this server listens, or
	// fails to (with the process at the latest).
	defer func() { releaseStartLock(*startLock) }()
	if _, set := os.LookupEnv("GOGC"); !set {
		// A verdict leaves short-lived garbage: collect less often than
		// GOGC=100, but by a fixed room above the live heap (gctune), so
		// that the peak RSS stays near the live heap plus serveGCRoom.
		// No soft memory limit: under one, the collector slows a heavy
		// rule past the evaluation deadline that every other surface
		// meets, and serve would answer differently; gctune gives a large
		// live heap GOGC=100 instead. GOGC in the environment wins;
		// GOMEMLIMIT, if set, applies as usual.
		gctune.Start(gctune.Config{Room: serveGCRoom, Min: 100, Max: 400})
	}
	if fs.NArg() > 0 {
		return exitf(ExitError, "serve: unexpected arguments %q (a socket path goes as --socket=PATH)", fs.Args())
	}
	if *stdioMode && (*addr != "" || sock.path != "") {
		return exitf(ExitError, "serve: --stdio cannot be combined with --addr or --socket")
	}
	if !*stdioMode && *addr == "" && sock.path == "" {
		*addr = server.DefaultAddr
	}
	logger := log.New(stdio.Err, "rivumi serve: ", 0)
	opts := []server.Option{server.WithLogger(logger), server.WithLimits(*maxBody, *maxBatch, *evalTimeout)}
	if *auditFile != "off" {
		path := *auditFile
		if path == "" {
			var err error
			if path, err = defaultAuditPath(); err != nil {
				return exitf(ExitError, "serve: %v", err)
			}
		}
		var aopts []audit.Option
		if !*auditSync {
			aopts = append(aopts, audit.WithoutSync())
		}
		l, err := audit.Open(path, aopts...)
		if err != nil {
			return exitf(ExitError, "serve: %v", err)
		}
		defer l.Close()
		opts = append(opts, server.WithAudit(l))
		if *auditLoose {
			opts = append(opts, server.WithBestEffortAudit())
		}
	}
	// Each request is graded with the configuration found from its own
	// cwd (or workspace); the engine of a request that names neither has
	// the user's configuration alone, never the project serve started in.
	opts = append(opts, server.WithConfigs(pf.configFor, 0))
	// On the socket, the thin hook client's calls run here (hookrelay.go).
	var srv *server.Server
	opts = append(opts, server.WithHookRelay(func(ctx context.Context, c hookrelay.Call, reply func(hookrelay.Result)) hookrelay.Result {
		return relayHook(ctx, srv, c, reply)
	}))
	load := func(ctx context.Context) (*engine.Engine, error) {
		_, load, err := pf.configFor(ctx, "")
		if err != nil {
			return nil, err
		}
		return load(ctx)
	}
	srv, err := server.New(ctx, load, opts...)
	if err != nil {
		return err
	}

	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				_ = srv.Reload(ctx) // logged; the old policy keeps serving on failure
			}
		}
	}()

	if *stdioMode {
		logger.Printf("answering JSON Lines on stdin (policy %s)", srv.Engine().PolicyHash())
		done := make(chan error, 1)
		go func() { done <- srv.ServeStdio(ctx, stdio.In, stdio.Out) }()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			return nil
		}
	}

	var lns []net.Listener
	if *addr != "" {
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			return exitf(ExitError, "serve: %v", err)
		}
		if ta, ok := ln.Addr().(*net.TCPAddr); ok && !ta.IP.IsLoopback() {
			logger.Printf("warning: %s is not a loopback address; anyone who reaches it can query this server", ln.Addr())
		}
		logger.Printf("listening on http://%s (policy %s)", ln.Addr(), srv.Engine().PolicyHash())
		lns = append(lns, ln)
	}
	if sock.path != "" {
		ln, err := server.ListenUnix(sock.path)
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			return exitf(ExitError, "serve: %v", err)
		}
		logger.Printf("listening on unix:%s (policy %s)", sock.path, srv.Engine().PolicyHash())
		lns = append(lns, ln)
	}
	releaseStartLock(*startLock)
	*startLock = -1
	// One listener failing stops them all.
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A started server keeps its compiled policy for as long as hooks
	// call it: it stops when idle, and when rivumi is upgraded under it
	// (the next hook then starts the new binary's server).
	replaced := func() bool { return false }
	if *whenReplaced {
		replaced = binaryReplaced()
	}
	if *idleExit > 0 || *whenReplaced {
		every := 10 * time.Second
		if *idleExit > 0 {
			every = min(*idleExit/4, every)
		}
		go func() {
			tick := time.NewTicker(every)
			defer tick.Stop()
			for {
				select {
				case <-sctx.Done():
					return
				case <-tick.C:
					switch {
					case *idleExit > 0 && srv.Idle() >= *idleExit:
						logger.Printf("no request for %v: stopping", *idleExit)
					case replaced():
						logger.Printf("the rivumi binary was replaced: stopping")
					default:
						continue
					}
					cancel()
					return
				}
			}
		}()
	}
	errs := make(chan error, len(lns))
	for _, ln := range lns {
		go func(ln net.Listener) { errs <- srv.Serve(sctx, ln) }(ln)
	}
	var first error
	for range lns {
		if err := <-errs; err != nil && first == nil {
			first = err
			cancel()
		}
	}
	logger.Printf("stopped")
	if first != nil {
		return exitf(ExitError, "serve: %v", first)
	}
	return nil
}
