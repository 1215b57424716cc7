package hook

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// GeminiInteractive reports whether the Gemini CLI that runs this hook is
// an interactive session, where a hook's ask shows a confirmation to the
// user. A headless `gemini -p` (or piped input) cannot answer one: Gemini
// CLI 0.61 then waits forever. So this answers true only when it finds the
// gemini process among its ancestors, started without -p/--prompt and with
// a terminal on stdin (or with -i/--prompt-interactive); anything it cannot
// tell (no /proc, no gemini ancestor) is false, the safe answer.
func GeminiInteractive() bool { return GeminiInteractiveFrom(os.Getppid()) }

// GeminiInteractiveFrom is [GeminiInteractive] for a hook whose parent is
// the process pid (a hook call relayed from the thin client is judged by
// the client's parent).
func GeminiInteractiveFrom(pid int) bool {
	if runtime.GOOS != "linux" {
		return false
	}
	for i := 0; i < 8 && pid > 1; i++ {
		argv := procArgv(pid)
		if i := geminiScript(argv); i >= 0 {
			return geminiArgsInteractive(argv[i+1:], isTerminal(pid))
		}
		pid = procParent(pid)
	}
	return false
}

// geminiScript returns the index in argv of the Gemini CLI's launcher or
// node entry point (after node and its options), or -1.
func geminiScript(argv []string) int {
	for i, a := range argv {
		if i > 0 && !strings.HasPrefix(a, "-") {
			if b := filepath.Base(a); b == "gemini" || b == "gemini.js" || strings.Contains(a, "@google/gemini-cli/") {
				return i
			}
			return -1
		}
		if i == 0 {
			b := filepath.Base(a)
			if b == "gemini" {
				return 0
			}
			if !strings.HasPrefix(b, "node") {
				return -1
			}
		}
	}
	return -1
}

// geminiArgsInteractive decides from the gemini process's arguments
// (after the program) and whether its stdin is a terminal, as Gemini CLI
// decides it is interactive.
func geminiArgsInteractive(args []string, tty bool) bool {
	for _, a := range args {
		switch {
		case a == "--":
			return tty
		case a == "-i" || a == "--prompt-interactive" || strings.HasPrefix(a, "--prompt-interactive="):
			return true
		case a == "-p" || a == "--prompt" || strings.HasPrefix(a, "--prompt="):
			return false
		}
	}
	return tty
}

func procArgv(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

func procParent(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

func isTerminal(pid int) bool {
	t, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/0")
	return err == nil && (strings.HasPrefix(t, "/dev/pts/") || strings.HasPrefix(t, "/dev/tty"))
}
