package cli

import (
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/rivumi/rivumi/hook"
)

// OneShotMemoryLimit is the soft memory limit of a one-shot command run
// with the collector off: a safety net, far above what one grading needs
// (a cold hook call peaks at ~40 MiB resident), past which the collector
// runs after all.
const OneShotMemoryLimit = 256 << 20

// OneShot reports whether args (without the program name) run a one-shot
// command — a hook call, `policy eval` of one command, `policy explain` —
// that compiles the policy, grades once and exits. Collecting garbage in
// such a process only costs time: the process ends before the heap
// matters. Long-running and batch commands (serve, mcp, run, policy test,
// policy eval --batch) keep the collector.
func OneShot(args []string) bool {
	path, cmd, rest := lookup(args)
	if cmd == nil {
		return false
	}
	switch path {
	case "policy explain":
		return true
	case "policy eval":
		return !slices.ContainsFunc(rest, func(a string) bool {
			return a == "--batch" || a == "-batch" || strings.HasPrefix(a, "--batch=") || strings.HasPrefix(a, "-batch=")
		})
	}
	for _, a := range hook.Agents {
		if path == "hook "+string(a) {
			return true
		}
	}
	return false
}

// lookup finds the longest registered command path that prefixes args.
func lookup(args []string) (string, *command, []string) {
	for n := min(len(args), 3); n > 0; n-- {
		p := strings.Join(args[:n], " ")
		if c, ok := commands[p]; ok {
			return p, &c, args[n:]
		}
	}
	return "", nil, args
}

// CollectorOff turns the garbage collector off with [OneShotMemoryLimit]
// as a soft limit, unless GOGC or GOMEMLIMIT in the environment say
// otherwise. cmd/rivumi calls it for [OneShot] commands, never a process
// that serves (the hook relay runs hook calls inside `rivumi serve`).
func CollectorOff() {
	_, gogc := os.LookupEnv("GOGC")
	_, limit := os.LookupEnv("GOMEMLIMIT")
	if gogc || limit {
		return
	}
	debug.SetMemoryLimit(OneShotMemoryLimit)
	debug.SetGCPercent(-1)
}
