package native

import (
	"regexp"
	"strings"

	"github.com/rivumi/rivumi/internal/lazyre"
)

// floorRules mirrors policies/rules/floor.rego, rule by rule. Each Match
// tests the segment's own facts (operands, flags, classes) before a table
// lookup (two map accesses), which costs most; the conditions are pure, so
// their order does not change the result.
var floorRules = []Rule{
	{ID: "floor.rm-critical", Layer: Floor, Match: floorRmCritical},
	{ID: "floor.find-delete-critical", Layer: Floor, Match: floorFindDeleteCritical},
	{ID: "floor.mv-critical", Layer: Floor, Match: floorMvCritical},
	// floor.fork-bomb: "fork-bomb" in input.segment.tags.
	{ID: "floor.fork-bomb", Layer: Floor, Match: func(s *Seg, _ *Tables) bool { return s.Tag("fork-bomb") }},
	// floor.device-write: "device" in input.segment.write_classes.
	{ID: "floor.device-write", Layer: Floor, Match: func(s *Seg, _ *Tables) bool { return s.WriteClass("device") }},
	{ID: "floor.device-format", Layer: Floor, Match: floorDeviceFormat},
	{ID: "floor.device-partition", Layer: Floor, Match: floorDevicePartition},
	{ID: "floor.mkfs", Layer: Floor, Match: floorMkfs},
	// floor.fetch-run: "fetched-code" in input.segment.tags.
	{ID: "floor.fetch-run", Layer: Floor, Match: func(s *Seg, _ *Tables) bool { return s.Tag("fetched-code") }},
	// floor.download-exec: "runs-downloaded" in input.segment.tags.
	{ID: "floor.download-exec", Layer: Floor, Match: func(s *Seg, _ *Tables) bool { return s.Tag("runs-downloaded") }},
	{ID: "floor.reverse-shell", Layer: Floor, Match: floorReverseShell},
	// floor.system-credentials: "credentials" in input.segment.write_classes.
	{ID: "floor.system-credentials", Layer: Floor, Match: func(s *Seg, _ *Tables) bool { return s.WriteClass("credentials") }},
	{ID: "floor.kill-init", Layer: Floor, Match: floorKillInit},
	{ID: "floor.chmod-critical", Layer: Floor, Match: floorChmodCritical},
	{ID: "floor.bash-func", Layer: Floor, Match: floorBashFunc},
	// floor.code-critical: "code-critical" in input.segment.tags.
	{ID: "floor.code-critical", Layer: Floor, Match: func(s *Seg, _ *Tables) bool { return s.Tag("code-critical") }},
}

// criticalOperand: some o in input.segment.operands; o.class in
// seg.critical_classes.
func criticalOperand(s *Seg) bool {
	for _, o := range s.Operands {
		if CriticalClass(o.Class) {
			return true
		}
	}
	return false
}

// operandClass: some o in input.segment.operands; o.class == c.
func operandClass(s *Seg, c string) bool {
	for _, o := range s.Operands {
		if o.Class == c {
			return true
		}
	}
	return false
}

// floorRmCritical is floor.rm-critical, three bodies:
//
//	kinds.deletes[program]; some f in {"recursive", "no-preserve-root"}; has_flag(f);
//	some o in operands; o.class in critical_classes
//
//	kinds.archives[program]; "remove-files" in flags;
//	some f in {"create", "append", "update", "c", "r", "u"}; f in flags;
//	some o in operands; o.class in critical_classes
//
//	program == "rsync"; some f in {"delete", "del", "delete-before", …}; f in flags;
//	some c in write_classes; c in critical_classes
func floorRmCritical(s *Seg, t *Tables) bool {
	if s.Program == "rsync" &&
		s.AnyFlag("delete", "del", "delete-before", "delete-during", "delete-delay", "delete-after", "delete-excluded") {
		for _, c := range s.WriteClasses {
			if CriticalClass(c) {
				return true
			}
		}
	}
	if s.Flag("remove-files") && s.AnyFlag("create", "append", "update", "c", "r", "u") && t.Kind("archives", s.Program) &&
		criticalOperand(s) {
		return true
	}
	return criticalOperand(s) && s.AnyFlag("recursive", "no-preserve-root") && t.Kind("deletes", s.Program)
}

// floorFindDeleteCritical is floor.find-delete-critical:
//
//	program == "find"; "delete" in flags; some o in operands;
//	o.class in critical_classes; not find_narrowed
func floorFindDeleteCritical(s *Seg, _ *Tables) bool {
	return s.Program == "find" && s.Flag("delete") && criticalOperand(s) && !findNarrowed(s)
}

// findNarrowed: find_narrowed — some test that picks files is given
// (name, iname, path, …, nogroup) and not find_widened.
func findNarrowed(s *Seg) bool {
	return s.AnyFlag("name", "iname", "path", "ipath", "wholename", "iwholename", "regex", "iregex", "lname", "ilname",
		"newer", "newermt", "mtime", "mmin", "atime", "amin", "ctime", "cmin", "size", "user", "group",
		"uid", "gid", "perm", "inum", "samefile", "links", "used", "nouser", "nogroup") && !findWidened(s)
}

// findWidened: find_widened, four bodies — a flag in {"o", "or", "not"};
// some argv word in {"!", ","}; some argv word in {"-name", …,
// "-iwholename"} or in {"-regex", "-iregex"} whose next word (defined)
// spans all (find_spans_all with the glob or the regex form).
func findWidened(s *Seg) bool {
	if s.AnyFlag("o", "or", "not") {
		return true
	}
	for i, a := range s.Argv {
		switch a {
		case "!", ",":
			return true
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename":
			if next, ok := s.Arg(i + 1); ok && findSpansAll(s, next, findWideGlob()) {
				return true
			}
		case "-regex", "-iregex":
			if next, ok := s.Arg(i + 1); ok && findSpansAll(s, next, findWideRegex()) {
				return true
			}
		}
	}
	return false
}

// The wide patterns of find_widened: globs of * ? . / with a *, regexes of
// . * + / with a * or +.
var (
	findWideGlob  = lazyre.New(`^[*?./]*\*[*?./]*$`)
	findWideRegex = lazyre.New(`^[.*+/]*[*+][.*+/]*$`)
)

// findSpansAll: find_spans_all(p, wide), three bodies — p is only * and
// .; p matches wide; or p starts with a critical operand's text or path and
// the rest matches wide.
func findSpansAll(s *Seg, p string, wide *regexp.Regexp) bool {
	if onlyStarsDots(p) || wide.MatchString(p) {
		return true
	}
	for _, o := range s.Operands {
		if !CriticalClass(o.Class) {
			continue
		}
		for _, start := range []string{o.Text, o.Path} {
			if strings.HasPrefix(p, start) && wide.MatchString(p[len(start):]) {
				return true
			}
		}
	}
	return false
}

// onlyStarsDots: regex.match(`^[*.]*$`, x) — x is empty or only '*' and '.'.
func onlyStarsDots(x string) bool {
	for i := 0; i < len(x); i++ {
		if x[i] != '*' && x[i] != '.' {
			return false
		}
	}
	return true
}

// floorMvCritical is floor.mv-critical, two bodies:
//
//	kinds.shreds[program]; some o in operands; o.class in critical_classes
//
//	program == "mv"; some i, o in operands; o.class in critical_classes; mv_source(i)
func floorMvCritical(s *Seg, t *Tables) bool {
	if s.Program == "mv" {
		for i, o := range s.Operands {
			if CriticalClass(o.Class) && mvSource(s, i) {
				return true
			}
		}
	}
	return criticalOperand(s) && t.Kind("shreds", s.Program)
}

// mvSource: mv_source(i) — operand i is not the destination: i <
// count(operands) - 1, or "target-directory" in flags.
func mvSource(s *Seg, i int) bool {
	return i < len(s.Operands)-1 || s.Flag("target-directory")
}

// floorDeviceFormat is floor.device-format, two bodies:
//
//	kinds.formats_devices[program]; "device" in read_classes
//
//	destructive_disk_mode; "device" in read_classes
func floorDeviceFormat(s *Seg, t *Tables) bool {
	return s.ReadClass("device") && (destructiveDiskMode(s) || t.Kind("formats_devices", s.Program))
}

// destructiveDiskMode: destructive_disk_mode — badblocks -w/-n; nvme
// format|sanitize|write-zeroes|delete-ns; hdparm --security-erase* or
// --trim-sector-ranges|--dco-restore|--make-bad-sector|--write-sector;
// zpool create|destroy|labelclear|add|replace.
func destructiveDiskMode(s *Seg) bool {
	switch s.Program {
	case "badblocks":
		return s.AnyFlag("w", "n")
	case "nvme":
		switch s.Subcommand {
		case "format", "sanitize", "write-zeroes", "delete-ns":
			return true
		}
	case "hdparm":
		for _, f := range s.Flags {
			if strings.HasPrefix(f, "security-erase") {
				return true
			}
		}
		return s.AnyFlag("trim-sector-ranges", "dco-restore", "make-bad-sector", "write-sector")
	case "zpool":
		switch s.Subcommand {
		case "create", "destroy", "labelclear", "add", "replace":
			return true
		}
	}
	return false
}

// floorDevicePartition is floor.device-partition, three bodies:
//
//	kinds.partitions[program]; "device" in read_classes; not partition_listing
//
//	program == "cryptsetup"; some o in operands; o.text in {"luksFormat", …};
//	"device" in read_classes
//
//	program == "cryptsetup"; some o in operands; o.text in {"luksFormat", …};
//	some d in operands; d.class == "device"
func floorDevicePartition(s *Seg, t *Tables) bool {
	if s.Program == "cryptsetup" && cryptsetupDestroys(s) && (s.ReadClass("device") || operandClass(s, "device")) {
		return true
	}
	return s.ReadClass("device") && t.Kind("partitions", s.Program) && !partitionListing(s)
}

// cryptsetupDestroys: some o in operands; o.text in {"luksFormat", "erase",
// "luksErase", "reencrypt", "format", "luksKillSlot"}.
func cryptsetupDestroys(s *Seg) bool {
	for _, o := range s.Operands {
		switch o.Text {
		case "luksFormat", "erase", "luksErase", "reencrypt", "format", "luksKillSlot":
			return true
		}
	}
	return false
}

// partitionListing: partition_listing, three bodies — a listing flag and
// the program is neither parted nor sgdisk; sgdisk with flags, every one
// in sgdisk_reads; or parted with a "print" operand where every operand is
// parted_reads.
func partitionListing(s *Seg) bool {
	switch s.Program {
	case "parted":
	case "sgdisk":
		for _, f := range s.Flags {
			if !sgdiskReads(f) {
				return false
			}
		}
		return len(s.Flags) > 0
	default:
		return s.AnyFlag("l", "list", "d", "dump", "p", "print", "J", "json", "s", "show-size", "v", "version", "help", "V")
	}
	printed := false
	for _, o := range s.Operands {
		if !partedReads(o.Class, o.Text) {
			return false
		}
		if o.Text == "print" {
			printed = true
		}
	}
	return printed
}

// sgdiskReads: f in sgdisk_reads.
func sgdiskReads(f string) bool {
	switch f {
	case "p", "print", "v", "verify", "i", "info", "O", "print-mbr", "L", "list-types", "D", "display-alignment",
		"E", "end-of-largest", "F", "first-in-largest", "f", "first-aligned-in-largest", "b", "backup",
		"V", "version", "h", "help", "?":
		return true
	}
	return false
}

// partedReads: parted_reads(op) — op.class == "device", or op.text is a
// word of parted's print (print, free, all, unit and its units, …).
func partedReads(class, text string) bool {
	if class == "device" {
		return true
	}
	switch text {
	case "print", "free", "all", "list", "devices", "unit", "s", "B", "kB", "MB", "MiB", "GB", "GiB",
		"TB", "TiB", "%", "cyl", "chs", "compact", "help", "version":
		return true
	}
	return false
}

// floorMkfs is floor.mkfs, two bodies:
//
//	startswith(program, "mkfs"); "device" in read_classes
//
//	startswith(program, "mkfs"); some o in operands; o.class == "device"
func floorMkfs(s *Seg, _ *Tables) bool {
	return strings.HasPrefix(s.Program, "mkfs") && (s.ReadClass("device") || operandClass(s, "device"))
}

// socatExec is the socat address the floor forbids: (?i)^(exec|system):.
var socatExec = lazyre.New(`(?i)^(exec|system):`)

// floorReverseShell is floor.reverse-shell, seven bodies:
//
//	kinds.netcat[program]; some f in {"e", "c", "exec", "sh-exec", "lua-exec"}; has_flag(f)
//	program == "socat"; some o in operands; regex.match(`(?i)^(exec|system):`, o.text)
//	"net" in write_classes
//	"net" in read_classes
//	programs.shells[program]; some p in upstream; kinds.socket_relay[p]
//	programs.shells[program]; some p in downstream; kinds.socket_relay[p]; shell_reads_commands
//	"code-revshell" in tags
func floorReverseShell(s *Seg, t *Tables) bool {
	if s.WriteClass("net") || s.ReadClass("net") || s.Tag("code-revshell") {
		return true
	}
	if s.Program == "socat" {
		for _, o := range s.Operands {
			if socatExec().MatchString(o.Text) {
				return true
			}
		}
	}
	if s.AnyFlag("e", "c", "exec", "sh-exec", "lua-exec") && t.Kind("netcat", s.Program) {
		return true
	}
	if len(s.Upstream)+len(s.Downstream) > 0 && t.Program("shells", s.Program) {
		for _, p := range s.Upstream {
			if t.Kind("socket_relay", p) {
				return true
			}
		}
		for _, p := range s.Downstream {
			if t.Kind("socket_relay", p) && shellReadsCommands(s) {
				return true
			}
		}
	}
	return false
}

// shellReadsCommands: shell_reads_commands, four bodies — "stdin-code" or
// "interactive" in tags; "i" in flags; no operands and not "c" in flags.
func shellReadsCommands(s *Seg) bool {
	return s.Tag("stdin-code") || s.Tag("interactive") || s.Flag("i") || len(s.Operands) == 0 && !s.Flag("c")
}

// dbusPowerMethod is the logind method the floor forbids over D-Bus.
var dbusPowerMethod = lazyre.New(`(?i)(^|\.)(PowerOff|Reboot|Halt|KExec)$`)

// floorKillInit is floor.kill-init, twelve bodies:
//
//	program == "kill"; some o in operands; regex.match(`^-?0*1$`, o.text)
//	program == "killall5"
//	program == "systemctl"; not systemctl_shows_only; some o in operands;
//	  regex.match(`^(poweroff|reboot|halt|kexec|emergency|rescue|soft-reboot)(\.target)?$`, o.text)
//	program == "loginctl"; subcommand in {"poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"}
//	kinds.dbus[program]; some a in argv; regex.match(`(?i)(^|\.)(PowerOff|Reboot|Halt|KExec)$`, a)
//	kinds.power[program]; not shutdown_cancels_or_shows
//	program == "init"; some o in operands; o.text in {"0", "6"}
//	program == "systemctl"; subcommand in {"poweroff", …, "soft-reboot"}
//	kinds.kills_by_name[program]; some o in operands; kill.selects_init(o.text)
//	program == "systemctl"; subcommand == "kill"; some o in operands; o.text in {"init.scope", "-.slice"}
//	kinds.kills_by_name[program]; "inverse" in flags
//	kinds.kills_by_name[program]; kill.every_process
func floorKillInit(s *Seg, t *Tables) bool {
	switch s.Program {
	case "kill":
		for _, o := range s.Operands {
			if killsInit(o.Text) {
				return true
			}
		}
	case "killall5":
		return true
	case "systemctl":
		if systemctlPower(s.Subcommand) {
			return true
		}
		if systemctlShowsOnly(s.Subcommand) {
			break
		}
		for _, o := range s.Operands {
			if systemctlPower(strings.TrimSuffix(o.Text, ".target")) {
				return true
			}
			if s.Subcommand == "kill" && (o.Text == "init.scope" || o.Text == "-.slice") {
				return true
			}
		}
	case "loginctl":
		switch s.Subcommand {
		case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate":
			return true
		}
	case "init":
		for _, o := range s.Operands {
			if o.Text == "0" || o.Text == "6" {
				return true
			}
		}
	}
	if t.Kind("power", s.Program) && !shutdownCancelsOrShows(s) {
		return true
	}
	if t.Kind("dbus", s.Program) {
		for _, a := range s.Argv {
			if dbusPowerMethod().MatchString(a) {
				return true
			}
		}
	}
	if !t.Kind("kills_by_name", s.Program) {
		return false
	}
	for _, o := range s.Operands {
		if killSelectsInit(s, o.Text) {
			return true
		}
	}
	return s.Flag("inverse") || killEveryProcess(s)
}

// systemctlShowsOnly is systemctl_shows_only: subcommand in {"status",
// "show", "cat", "list-dependencies", "is-active", "is-enabled",
// "is-failed", "help"}.
func systemctlShowsOnly(sub string) bool {
	switch sub {
	case "status", "show", "cat", "list-dependencies", "is-active", "is-enabled", "is-failed", "help":
		return true
	}
	return false
}

// shutdownCancelsOrShows is shutdown_cancels_or_shows: program ==
// "shutdown"; static_args; some flag in {"c", "show", "help"}; every flag
// in {"c", "show", "help", "no-wall"}.
func shutdownCancelsOrShows(s *Seg) bool {
	if s.Program != "shutdown" || !s.StaticArgs() {
		return false
	}
	action := false
	for _, f := range s.Flags {
		switch f {
		case "c", "show", "help":
			action = true
		case "no-wall":
		default:
			return false
		}
	}
	return action
}

// killsInit: regex.match(`^-?0*1$`, x) — 1, -1, 0001, -01.
func killsInit(x string) bool {
	x = strings.TrimPrefix(x, "-")
	x = strings.TrimLeft(x, "0")
	return x == "1"
}

// systemctlPower: x in {"poweroff", "reboot", "halt", "kexec", "emergency",
// "rescue", "soft-reboot"}.
func systemctlPower(x string) bool {
	switch x {
	case "poweroff", "reboot", "halt", "kexec", "emergency", "rescue", "soft-reboot":
		return true
	}
	return false
}

// floorChmodCritical is floor.chmod-critical:
//
//	kinds.permissions[program]; "recursive" in flags; some o in operands;
//	o.class in critical_classes
func floorChmodCritical(s *Seg, t *Tables) bool {
	return s.Flag("recursive") && criticalOperand(s) && t.Kind("permissions", s.Program)
}

// floorBashFunc is floor.bash-func:
//
//	"assigns" in tags; some a in assigns; startswith(a.name, "BASH_FUNC_")
func floorBashFunc(s *Seg, _ *Tables) bool {
	if !s.Tag("assigns") {
		return false
	}
	for _, a := range s.Assigns {
		if strings.HasPrefix(a.Name, "BASH_FUNC_") {
			return true
		}
	}
	return false
}
