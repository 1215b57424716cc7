package native

import (
	"regexp"
	"strings"

	"github.com/rivumi/rivumi/parser"
)

// The kill-by-name helpers mirror policies/lib/kill.rego.

// initNames is kill.init_names: the names PID 1 runs under.
var initNames = []string{"init", "systemd", "launchd"}

// initCmdlines is kill.init_cmdlines: PID 1's command lines.
var initCmdlines = []string{
	"init", "systemd", "launchd", "/sbin/launchd",
	"/sbin/init", "/sbin/init splash", "/sbin/init --system",
	"/lib/systemd/systemd", "/lib/systemd/systemd --system --deserialize 30",
	"/usr/lib/systemd/systemd", "/usr/lib/systemd/systemd --switched-root --system --deserialize 31",
}

// killPatterns is kill.patterns: program == "pkill", or "regexp" in flags.
func killPatterns(s *Seg) bool { return s.Program == "pkill" || s.Flag("regexp") }

// killSelectsInit is kill.selects_init(t).
func killSelectsInit(s *Seg, t string) bool {
	if !killPatterns(s) {
		for _, c := range initCmdlines {
			if strings.ToLower(t) == c {
				return true
			}
		}
		return false
	}
	if !ereReadable(t) {
		return false
	}
	expr := "(?i)" + t
	if s.Program == "pkill" && s.Flag("exact") {
		expr = "(?i)^(?:" + t + ")$"
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return false // cannot happen: t compiles, and so does t wrapped
	}
	subjects := initNames
	if s.Flag("full") {
		subjects = initCmdlines
	}
	for _, c := range subjects {
		if re.MatchString(c) {
			return true
		}
	}
	return false
}

// killUnreadable is kill.unreadable(o).
func killUnreadable(s *Seg, o parser.Operand) bool {
	return o.Class == parser.ClassDynamic || killPatterns(s) && !ereReadable(o.Text)
}

// killUnknown is kill.unknown: "dynamic-args" or "appended-args" in tags.
func killUnknown(s *Seg) bool { return s.Tag("dynamic-args") || s.Tag("appended-args") }

// killEveryProcess is kill.every_process.
func killEveryProcess(s *Seg) bool {
	return len(s.Operands) == 0 && !killStdinOnly(s) && !s.Flag("help") && !s.Flag("version") && !s.Flag("list") && !s.Flag("pidfile")
}

// killStdinOnly is kill.stdin_only: "appended-args" in tags; every f in
// flags is "signal".
func killStdinOnly(s *Seg) bool {
	if !s.Tag("appended-args") {
		return false
	}
	for _, f := range s.Flags {
		if f != "signal" {
			return false
		}
	}
	return true
}
