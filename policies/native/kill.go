package native

import (
	"strings"

	"github.com/rivumi/rivumi/codescan"
	"github.com/rivumi/rivumi/internal/ere"
	"github.com/rivumi/rivumi/parser"
)

// The kill-by-name helpers mirror policies/lib/kill.rego.

// initNames is kill.init_names, initCmdlines kill.init_cmdlines: the raw
// floor scan's lists.
var initNames, initCmdlines = codescan.InitNames, codescan.InitCmdlines

// killPatterns is kill.patterns: program == "pkill", "regexp" in flags, or
// program == "killall" and "m" in flags.
func killPatterns(s *Seg) bool {
	return s.Program == "pkill" || s.Flag("regexp") || s.Program == "killall" && s.Flag("m")
}

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
	subjects := initNames
	if s.Flag("full") {
		subjects = initCmdlines
	}
	return ere.Finds(t, s.Program == "pkill" && s.Flag("exact"), subjects)
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
