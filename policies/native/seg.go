package native

import (
	"slices"

	"github.com/rivumi/rivumi/parser"
)

// Seg is one segment as the rules read it: input.segment. It embeds the
// parser's segment and adds what the engine derives for the Rego input
// (engine/input.go): write_classes and read_classes, the classes of the
// written and read operands with their link targets' (a link to /dev/null
// adds nothing).
type Seg struct {
	*parser.Segment
	WriteClasses, ReadClasses []string // as sets: order and repeats carry nothing
}

// NewSeg is the rules' view of s.
func NewSeg(s *parser.Segment) *Seg {
	return &Seg{Segment: s, WriteClasses: ClassSet(s.Writes), ReadClasses: ClassSet(s.Reads)}
}

// ClassSet is the classes of os and of their link targets (engine/input.go
// builds input.segment.write_classes and read_classes the same way).
func ClassSet(os []parser.Operand) []string {
	if len(os) == 0 {
		return nil
	}
	out := make([]string, 0, len(os))
	for _, o := range os {
		out = append(out, o.Class)
		if o.LinkClass != "" && o.LinkClass != parser.ClassNull {
			out = append(out, o.LinkClass)
		}
	}
	return out
}

// Flag: f in input.segment.flags.
func (s *Seg) Flag(f string) bool { return slices.Contains(s.Flags, f) }

// AnyFlag: some f in fs; f in input.segment.flags.
func (s *Seg) AnyFlag(fs ...string) bool {
	for _, f := range fs {
		if slices.Contains(s.Flags, f) {
			return true
		}
	}
	return false
}

// Tag: t in input.segment.tags (seg.tagged(t)).
func (s *Seg) Tag(t string) bool { return slices.Contains(s.Tags, t) }

// WriteClass: c in input.segment.write_classes.
func (s *Seg) WriteClass(c string) bool { return slices.Contains(s.WriteClasses, c) }

// ReadClass: c in input.segment.read_classes.
func (s *Seg) ReadClass(c string) bool { return slices.Contains(s.ReadClasses, c) }

// Arg is input.segment.argv[i] and whether it is defined.
func (s *Seg) Arg(i int) (string, bool) {
	if i < 0 || i >= len(s.Argv) {
		return "", false
	}
	return s.Argv[i], true
}

// Option is input.segment.options[k] and whether it is defined.
func (s *Seg) Option(k string) ([]string, bool) {
	v, ok := s.Options[k]
	return v, ok
}

// The rest mirrors policies/lib/segment.rego (data.rivumi.lib.segment).

// CriticalClass: c in seg.critical_classes — paths whose recursive
// deletion or overwrite the floor forbids.
func CriticalClass(c string) bool { return c == "root" || c == "home" || c == "system-top" }

// ProtectedClass: c in seg.protected_classes — paths no command may write.
func ProtectedClass(c string) bool {
	switch c {
	case "git", "agent-config", "rc", "ssh", "ci", "envrc":
		return true
	}
	return false
}

// SecretClass: c in seg.secret_classes.
func (t *Tables) SecretClass(c string) bool { return t.InSet("secret_classes", c) }

// UnreadableClass: c in seg.unreadable_classes.
func (t *Tables) UnreadableClass(c string) bool { return t.InSet("unreadable_classes", c) }

// UnknowableTagName: data.rivumi.tables.sets.unknowable_tags[t].
func (t *Tables) UnknowableTagName(tag string) bool { return t.InSet("unknowable_tags", tag) }

// harmlessAssigns is seg.harmless_assigns.
var harmlessAssigns = map[string]bool{
	"LANG": true, "LC_ALL": true, "LC_CTYPE": true, "LC_MESSAGES": true, "TZ": true, "NO_COLOR": true,
	"FORCE_COLOR": true, "TERM": true, "COLUMNS": true, "LINES": true, "GIT_PAGER_IN_USE": true,
	"CLICOLOR": true, "PAGER_DISABLED": true, "DEBUG": true, "CI": true, "RUST_BACKTRACE": true,
}

// HarmlessAssignName: name in seg.harmless_assigns.
func HarmlessAssignName(name string) bool { return harmlessAssigns[name] }

// UnknowableTag: seg.unknowable_tag — a tag that makes the segment
// unknowable or run code.
func (s *Seg) UnknowableTag(t *Tables) bool {
	for _, tag := range s.Tags {
		if t.UnknowableTagName(tag) {
			return true
		}
	}
	return false
}

// Plain: seg.plain — a program spelled plainly (bare name or a system bin
// path), wrapped at most by harmless wrappers, with harmless assignments
// and nothing unknowable.
func (s *Seg) Plain(t *Tables) bool {
	return (s.PathKind == "bare" || s.PathKind == "system") && !s.UnknowableTag(t) && s.PlainWrappers(t) && s.PlainAssigns(t)
}

// PlainWrappers: seg.plain_wrappers.
func (s *Seg) PlainWrappers(t *Tables) bool {
	if !s.Tag("wrapped") {
		return true
	}
	for _, w := range s.Wrappers {
		if !t.Kind("harmless_wrapper", w.Name) {
			return false
		}
	}
	return true
}

// PlainAssigns: seg.plain_assigns.
func (s *Seg) PlainAssigns(t *Tables) bool {
	if !s.Tag("assigns") {
		return true
	}
	for _, a := range s.Assigns {
		if !s.HarmlessAssign(t, a) {
			return false
		}
	}
	return true
}

// HarmlessAssign: seg.harmless_assign(a).
func (s *Seg) HarmlessAssign(t *Tables, a parser.Assign) bool {
	if a.Dynamic {
		return false
	}
	// IFS= read -r line: IFS only shapes read's own splitting.
	return harmlessAssigns[a.Name] || a.Name == "IFS" && t.Kind("reads_vars", s.Program)
}

// WritesInWorkspace: seg.writes_in_workspace — everything the segment
// writes is inside the workspace (and not protected there).
func (s *Seg) WritesInWorkspace() bool {
	if !s.Tag("writes") {
		return true
	}
	return setEquals(s.WriteClasses, "workspace")
}

// setEquals: the set of xs is exactly {want}.
func setEquals(xs []string, want string) bool {
	if len(xs) == 0 {
		return false
	}
	for _, x := range xs {
		if x != want {
			return false
		}
	}
	return true
}

// NoWrites: seg.no_writes.
func (s *Seg) NoWrites() bool { return len(s.Writes) == 0 }

// ReadsOK: seg.reads_ok — nothing the segment reads needs consent.
func (s *Seg) ReadsOK(t *Tables) bool { return !s.UnreadableRead(t) }

// UnreadableRead: seg.unreadable_read.
func (s *Seg) UnreadableRead(t *Tables) bool {
	for _, c := range s.ReadClasses {
		if t.UnreadableClass(c) {
			return true
		}
	}
	return false
}

// QueryOnly: seg.query_only — prog --version or prog --help.
func (s *Seg) QueryOnly() bool {
	return len(s.Argv) == 2 && (s.Argv[1] == "--version" || s.Argv[1] == "--help")
}

// StaticArgs: seg.static_args — every argument is static.
func (s *Seg) StaticArgs() bool { return !s.Tag("dynamic-args") }
