package native

import (
	"slices"
	"strings"
)

// readonlyRules mirrors policies/rules/readonly.rego, rule by rule. Each
// Match tests the program (one map lookup or comparison) before anything
// that walks the segment: most segments fail there.
var readonlyRules = []Rule{
	// allow.readonly: readonly[program]; program != "git"; readonly_flags_ok;
	// readonly_dynamic_ok; readonly_operands_ok; seg.plain;
	// seg.writes_in_workspace; seg.reads_ok; readonly_code_ok.
	{ID: "allow.readonly", Layer: Allow, Match: func(s *Seg, t *Tables) bool {
		if s.Program == "git" {
			return false
		}
		spec := t.Readonly[s.Program]
		return spec != nil && readonlyFlagsOK(s, spec) && readonlyNeedsOK(s, spec) && readonlyDynamicOK(s, spec) &&
			readonlyOperandsOK(s, spec) &&
			readonlyCodeOK(s) && s.WritesInWorkspace() && s.Plain(t) && readonlyReadsOK(s, t)
	}},
	// allow.git-readonly: program == "git"; git_readonly[subcommand];
	// seg.plain; seg.static_args; git_flags_ok; git_globals_ok; git_list_ok;
	// seg.writes_in_workspace; seg.reads_ok; count(code) == 0.
	{ID: "allow.git-readonly", Layer: Allow, Match: func(s *Seg, t *Tables) bool {
		if s.Program != "git" {
			return false
		}
		spec := t.GitReadonly[s.Subcommand]
		return spec != nil && len(s.Code) == 0 && s.StaticArgs() && readonlyFlagsOK(s, spec) && gitListOK(s, t) &&
			s.WritesInWorkspace() && gitGlobalsOK(s) && s.Plain(t) && s.ReadsOK(t)
	}},
	// allow.assignment: program == ""; count(argv) == 0; "assigns" in tags;
	// not seg.unknowable_tag; every a in assigns { not a.dynamic };
	// seg.writes_in_workspace.
	{ID: "allow.assignment", Layer: Allow, Match: func(s *Seg, t *Tables) bool {
		if s.Program != "" || len(s.Argv) != 0 || !s.Tag("assigns") {
			return false
		}
		for i := range s.Assigns {
			if s.Assigns[i].Dynamic {
				return false
			}
		}
		return s.WritesInWorkspace() && !s.UnknowableTag(t)
	}},
	// allow.version, two bodies sharing their tail (not project_toolchain;
	// seg.plain; seg.no_writes; count(wrappers) == 0):
	//   argv[1] in {"--version", "--help"}; count(argv) == 2
	//   some form in version_forms[program]; array.slice(argv, 1, count(argv)) == form
	{ID: "allow.version", Layer: Allow, Match: func(s *Seg, t *Tables) bool {
		if !s.QueryOnly() && !versionForm(s, t) {
			return false
		}
		return len(s.Wrappers) == 0 && s.NoWrites() && !projectToolchain(s, t) && s.Plain(t)
	}},
	// allow.workspace-write: writers[program]; "writes" in tags; seg.plain;
	// seg.static_args; writer_flags_ok; seg.writes_in_workspace; seg.reads_ok.
	{ID: "allow.workspace-write", Layer: Allow, Match: func(s *Seg, t *Tables) bool {
		spec := t.Writers[s.Program]
		return spec != nil && s.Tag("writes") && s.StaticArgs() && writerFlagsOK(s, spec) && s.WritesInWorkspace() &&
			s.Plain(t) && s.ReadsOK(t)
	}},
	// allow.apply-patch: program in {"apply_patch", "applypatch"};
	// "apply-patch" in tags; seg.plain; count(argv) == 1;
	// seg.writes_in_workspace.
	{ID: "allow.apply-patch", Layer: Allow, Match: func(s *Seg, t *Tables) bool {
		if s.Program != "apply_patch" && s.Program != "applypatch" {
			return false
		}
		return len(s.Argv) == 1 && s.Tag("apply-patch") && s.WritesInWorkspace() && s.Plain(t)
	}},
	// allow.text-script: kinds.text_script[program]; seg.plain;
	// seg.static_args; count(code) > 0; every c in code { c.safe };
	// every f in flags { f in {…} }; seg.writes_in_workspace; seg.reads_ok.
	{ID: "allow.text-script", Layer: Allow, Match: func(s *Seg, t *Tables) bool {
		if len(s.Code) == 0 || !t.Kind("text_script", s.Program) {
			return false
		}
		for i := range s.Code {
			if !s.Code[i].Safe {
				return false
			}
		}
		for _, f := range s.Flags {
			if !textScriptFlag(f) {
				return false
			}
		}
		return s.StaticArgs() && s.WritesInWorkspace() && s.Plain(t) && s.ReadsOK(t)
	}},
	// allow.git-local: program == "git"; git_local; seg.plain;
	// seg.static_args; git_globals_ok; seg.writes_in_workspace; seg.reads_ok;
	// count(code) == 0.
	{ID: "allow.git-local", Layer: Allow, Match: func(s *Seg, t *Tables) bool {
		if s.Program != "git" {
			return false
		}
		return gitLocal(s) && len(s.Code) == 0 && s.StaticArgs() && s.WritesInWorkspace() && gitGlobalsOK(s) &&
			s.Plain(t) && s.ReadsOK(t)
	}},
	// allow.listed-readonly: "listed-args" in tags; readonly[program];
	// program != "git"; path_kind in {"bare", "system"}; listed_tags_ok;
	// seg.plain_assigns; listed_wrappers_ok; readonly_flags_ok;
	// readonly_operands_ok; seg.writes_in_workspace; seg.reads_ok;
	// count(code) == 0.
	{ID: "allow.listed-readonly", Layer: Allow, Match: func(s *Seg, t *Tables) bool {
		if s.Program == "git" || len(s.Code) != 0 {
			return false
		}
		spec := t.Readonly[s.Program]
		if spec == nil || s.PathKind != "bare" && s.PathKind != "system" || !s.Tag("listed-args") {
			return false
		}
		return readonlyFlagsOK(s, spec) && readonlyOperandsOK(s, spec) && s.WritesInWorkspace() &&
			listedWrappersOK(s, t) && listedTagsOK(s, t) && s.PlainAssigns(t) && s.ReadsOK(t)
	}},
}

// readonlyCodeOK: readonly_code_ok — no code, or (jq) every piece of code
// is a jq filter in the safe subset.
func readonlyCodeOK(s *Seg) bool {
	if len(s.Code) == 0 {
		return true
	}
	if s.Program != "jq" {
		return false
	}
	for i := range s.Code {
		if s.Code[i].Lang != "jq" || !s.Code[i].Safe {
			return false
		}
	}
	return true
}

// readonlyFlagsOK: readonly_flags_ok with spec = readonly[program] (and
// git_flags_ok with spec = git_readonly[subcommand], the same two bodies):
// spec.any, or every flag is in spec.flags.
func readonlyFlagsOK(s *Seg, spec *Spec) bool {
	if spec.Any {
		return true
	}
	for _, f := range s.Flags {
		if !spec.Flags[f] {
			return false
		}
	}
	return true
}

// readonlyReadsOK: readonly_reads_ok — seg.reads_ok, or names_only and
// every read class readable or one of root, home, system-top.
func readonlyReadsOK(s *Seg, t *Tables) bool {
	if s.ReadsOK(t) {
		return true
	}
	if !namesOnly(s, t) {
		return false
	}
	for _, c := range s.ReadClasses {
		if t.UnreadableClass(c) && c != "root" && c != "home" && c != "system-top" {
			return false
		}
	}
	return true
}

// readonlyNeedsOK: readonly_needs_ok — no spec.needs, or some flag in it.
func readonlyNeedsOK(s *Seg, spec *Spec) bool {
	if spec.Needs == nil {
		return true
	}
	for _, f := range s.Flags {
		if spec.Needs[f] {
			return true
		}
	}
	return false
}

// readonlyListing: readonly_listing — readonly[program].needs;
// readonly_needs_ok; readonly_flags_ok.
func readonlyListing(s *Seg, t *Tables) bool {
	spec := t.Readonly[s.Program]
	return spec != nil && spec.Needs != nil && readonlyNeedsOK(s, spec) && readonlyFlagsOK(s, spec)
}

// readonlyOperandsOK: readonly_operands_ok — not spec.no_operands, or no
// operands.
func readonlyOperandsOK(s *Seg, spec *Spec) bool { return !spec.NoOperands || len(s.Operands) == 0 }

// readonlyDynamicOK: readonly_dynamic_ok — no dynamic arguments, or
// spec.dynamic_ok.
func readonlyDynamicOK(s *Seg, spec *Spec) bool { return spec.DynamicOK || !s.Tag("dynamic-args") }

// versionForm: the second allow.version body's head — some form in
// version_forms[program] equals argv[1:] (array.slice clamps, so an empty
// argv slices to []).
func versionForm(s *Seg, t *Tables) bool {
	forms := t.VersionForms[s.Program]
	if len(forms) == 0 {
		return false
	}
	rest := s.Argv[min(1, len(s.Argv)):]
	for _, form := range forms {
		if slices.Equal(rest, form) {
			return true
		}
	}
	return false
}

// projectToolchain: project_toolchain — project_loaders[program] is
// defined (a list, empty or not, is true in Rego).
func projectToolchain(s *Seg, t *Tables) bool {
	_, ok := t.ProjectLoaders[s.Program]
	return ok
}

// writerFlagsOK: writer_flags_ok — every flag is in writers[program].flags.
func writerFlagsOK(s *Seg, spec *Spec) bool {
	for _, f := range s.Flags {
		if !spec.Flags[f] {
			return false
		}
	}
	return true
}

// textScriptFlag: the flags allow.text-script accepts.
func textScriptFlag(f string) bool {
	switch f {
	case "n", "quiet", "silent", "E", "r", "regexp-extended", "s", "separate", "z", "null-data", "e", "expression",
		"F", "field-separator", "v", "assign", "posix", "sandbox", "u", "unbuffered", "in-place":
		return true
	}
	return false
}

// gitGlobalsOK: git_globals_ok — every option key passes git_option_ok, and
// every class in options["git-dir-class"] (none when absent) is
// "workspace".
func gitGlobalsOK(s *Seg) bool {
	for k, v := range s.Options {
		if !gitOptionOK(s, k) {
			return false
		}
		if k == "git-dir-class" {
			for _, c := range v {
				if c != "workspace" {
					return false
				}
			}
		}
	}
	return true
}

// gitOptionOK: git_option_ok(k) — not a global option, or one of -C,
// --no-pager, -P, or -c with only harmless settings.
func gitOptionOK(s *Seg, k string) bool {
	if !strings.HasPrefix(k, "global:") {
		return true
	}
	switch k {
	case "global:C", "global:no-pager", "global:P":
		return true
	case "global:c":
		return gitCHarmless(s)
	}
	return false
}

// gitListOK: git_list_ok — git_words_ok and git_list_flags_ok.
func gitListOK(s *Seg, t *Tables) bool { return gitWordsOK(s, t) && gitListFlagsOK(s, t) }

// gitWordsOK: git_words_ok — the subcommand needs no listing word; or the
// first operand is one; or there are no operands and git_word_given (which,
// with no operands, is: the subcommand does not need a word).
func gitWordsOK(s *Seg, t *Tables) bool {
	words, ok := t.GitListWords[s.Subcommand]
	if !ok {
		return true
	}
	if len(s.Operands) == 0 {
		return gitWordGiven(s, t)
	}
	return slices.Contains(words, s.Operands[0].Text)
}

// gitWordGiven: git_word_given — the subcommand does not need a listing
// word, or there are operands.
func gitWordGiven(s *Seg, t *Tables) bool {
	return !t.GitNeedsWord[s.Subcommand] || len(s.Operands) > 0
}

// gitListFlagsOK: git_list_flags_ok — the subcommand has no listing flags,
// or there are no operands, or one of its listing flags is given.
func gitListFlagsOK(s *Seg, t *Tables) bool {
	fs, ok := t.GitListFlags[s.Subcommand]
	if !ok || len(s.Operands) == 0 {
		return true
	}
	return s.AnyFlag(fs...)
}

// gitLocal: git_local, two bodies —
//
//	subcommand == "add"; every f in flags { f in {…} };
//	every o in operands { o.class in {…} }
//	subcommand == "branch"; count(operands) in {1, 2};
//	not startswith(operands[0].text, "-"); every f in flags { f in {…} }
func gitLocal(s *Seg) bool {
	switch s.Subcommand {
	case "add":
		for _, f := range s.Flags {
			switch f {
			case "all", "update", "no-all", "ignore-removal", "no-ignore-removal", "intent-to-add", "verbose", "dry-run",
				"refresh", "ignore-errors", "ignore-missing":
			default:
				return false
			}
		}
		for i := range s.Operands {
			switch s.Operands[i].Class {
			case "workspace", "instructions", "project-code", "ci", "agent-config", "envrc":
			default:
				return false
			}
		}
		return true
	case "switch", "checkout":
		return gitNewBranch(s)
	case "branch":
		if n := len(s.Operands); n != 1 && n != 2 || strings.HasPrefix(s.Operands[0].Text, "-") {
			return false
		}
		for _, f := range s.Flags {
			if f != "no-track" && f != "create-reflog" && f != "quiet" {
				return false
			}
		}
		return true
	}
	return false
}

// gitNewBranch: git_new_branch — switch with git_new_branch_named("create"),
// or checkout with git_new_branch_named("b"): no operands; exactly one value
// of the option, not empty and not starting with "-"; every flag the option
// or "quiet".
func gitNewBranch(s *Seg) bool {
	opt := ""
	switch s.Subcommand {
	case "switch":
		opt = "create"
	case "checkout":
		opt = "b"
	default:
		return false
	}
	v := s.Options[opt]
	if len(s.Operands) != 0 || len(v) != 1 || v[0] == "" || strings.HasPrefix(v[0], "-") {
		return false
	}
	for _, f := range s.Flags {
		if f != opt && f != "quiet" {
			return false
		}
	}
	return true
}

// listedTagsOK: listed_tags_ok — every tag is "appended-args" or not an
// unknowable one.
func listedTagsOK(s *Seg, t *Tables) bool {
	for _, tag := range s.Tags {
		if tag != "appended-args" && t.UnknowableTagName(tag) {
			return false
		}
	}
	return true
}

// listedWrappersOK: listed_wrappers_ok — exactly one wrapper hands the
// listing over (xargs or find, counted with repeats) and every wrapper
// hands it over or is harmless.
func listedWrappersOK(s *Seg, t *Tables) bool {
	hands, harmless := t.Kinds["hands_listing"], t.Kinds["harmless_wrapper"]
	n := 0
	for i := range s.Wrappers {
		name := s.Wrappers[i].Name
		if hands[name] {
			n++
		} else if !harmless[name] {
			return false
		}
	}
	return n == 1
}
