package rules

import (
	"sort"
	"strings"
	"sync"

	"github.com/rivumi/rivumi/programs"
)

// Option describes one option of a program.
type Option struct {
	// Canon is the canonical name facts use: the first long name, or the
	// short letter when the option has no long name.
	Canon string
	// Arg is ArgNone, ArgRequired or ArgOptional.
	Arg ArgKind
}

// ArgKind says whether an option takes a value.
type ArgKind uint8

// Argument kinds. An optional argument is only taken when attached
// (`--color=auto`, `-n5` is still required-style for short options).
const (
	ArgNone ArgKind = iota
	ArgRequired
	ArgOptional
)

// Spec is what rivumi knows of a program's command line.
type Spec struct {
	Short map[byte]Option   // by letter
	Long  map[string]Option // by long name, without dashes
	// Abbrev is true when the program accepts unique prefixes of long
	// options (GNU getopt_long, git's parse-options).
	Abbrev bool
	// FoldCase is true for programs whose option names are not case
	// sensitive (PowerShell: -Command, -command, -COMMAND).
	FoldCase bool
	// SingleDashLong is true for programs whose long options take one dash
	// (find -name, java -jar); such words are not split into letters.
	SingleDashLong bool
	// Subcommands is true when the first operand names a subcommand
	// (git, npm, go …); per-subcommand specs are keyed "prog sub".
	Subcommands bool
	// InOrder is true when options end at the first operand (POSIX
	// getopt: shells, interpreters, ssh, find, echo); otherwise options may
	// follow operands (GNU permutation).
	InOrder bool

	// The option maps are built from desc on first use (see spec): ~250
	// descriptions parsed at start-up cost half a millisecond of every
	// process, and a hook grades one or two programs.
	desc  string
	built sync.Once
}

// build fills Short and Long from desc, once.
func (s *Spec) build() *Spec {
	s.built.Do(func() {
		if s.Short != nil || s.Long != nil {
			return // made by hand, not from a description
		}
		s.Short, s.Long = map[byte]Option{}, map[string]Option{}
		for _, ent := range strings.Fields(s.desc) {
			arg := ArgNone
			switch {
			case strings.HasSuffix(ent, "=?"):
				arg, ent = ArgOptional, strings.TrimSuffix(ent, "=?")
			case strings.HasSuffix(ent, "="):
				arg, ent = ArgRequired, strings.TrimSuffix(ent, "=")
			}
			names := strings.Split(ent, "|")
			canon := names[0]
			for _, n := range names {
				if len(n) > 1 {
					canon = n
					break
				}
			}
			o := Option{Canon: canon, Arg: arg}
			for _, n := range names {
				if len(n) == 1 {
					s.Short[n[0]] = o
				} else {
					s.Long[n] = o
				}
			}
		}
	})
	return s
}

// LookupLong resolves a long option name, honouring unique-prefix
// abbreviations when the program accepts them. It returns the option and
// true, or false when unknown or ambiguous.
func (s *Spec) LookupLong(name string) (Option, bool) {
	if s == nil {
		return Option{}, false
	}
	if o, ok := s.Long[name]; ok {
		return o, true
	}
	if !s.Abbrev || name == "" {
		return Option{}, false
	}
	var found Option
	n := 0
	seen := map[string]bool{}
	for long, o := range s.Long {
		if strings.HasPrefix(long, name) && !seen[o.Canon] {
			seen[o.Canon] = true
			found = o
			n++
		}
	}
	return found, n == 1
}

// spec builds a Spec from a compact description: space-separated entries,
// each a list of spellings joined by '|' (one letter = short option, more =
// long option), optionally followed by '=' (takes a value) or '=?' (takes an
// optional attached value). Example: "r|R|recursive f|force n|lines=".
func spec(desc string) *Spec {
	return &Spec{desc: desc, Abbrev: true} // parsed by build on first use
}

// ProgramSpec returns what rivumi knows of prog (or "prog sub" for a
// subcommand), or nil. Program names are basenames as the parser normalises
// them.
func ProgramSpec(name string) *Spec {
	s := specs[name]
	if s == nil {
		// A versioned name of a registry program (python3.12).
		if p := programs.Lookup(name); p != nil {
			s = specs[p.Names[0]]
		}
	}
	if s == nil {
		return nil
	}
	return s.build()
}

// KnownPrograms lists the programs with a spec, sorted; for tests and docs.
func KnownPrograms() []string {
	out := make([]string, 0, len(specs))
	for k := range specs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func with(s *Spec, f func(*Spec)) *Spec { f(s); return s }

func inOrder(s *Spec) { s.InOrder = true; s.Abbrev = false }

// subcommandPrograms take a subcommand as their first operand.
var subcommandPrograms = map[string]bool{
	"git": true, "npm": true, "pnpm": true, "yarn": true, "go": true,
	"cargo": true, "rustup": true, "docker": true, "podman": true, "kubectl": true, "helm": true,
	"pip": true, "pip3": true, "uv": true, "poetry": true, "pipx": true, "conda": true, "gem": true,
	"bundle": true, "composer": true, "dotnet": true, "apt": true, "apt-get": true, "dnf": true,
	"yum": true, "brew": true, "snap": true, "flatpak": true, "nix": true, "terraform": true,
	"tofu": true, "systemctl": true, "launchctl": true, "gh": true, "glab": true, "aws": true,
	"gcloud": true, "az": true, "vault": true, "nats": true, "circleci": true, "heroku": true,
	"fly": true, "flyctl": true, "vercel": true, "netlify": true, "firebase": true, "kind": true,
	"minikube": true, "rclone": true, "kafka-topics": false, "pulumi": true, "ansible-galaxy": true,
	"mix": true, "stack": true, "cabal": true, "swift": true, "zig": true, "ollama": true,
	"npx": false, "apk": true, "pacman": false, "port": true, "mvn": false, "gradle": false,
	"supabase": true, "wrangler": true, "railway": true, "doctl": true, "stripe": true,
	"mise": true, "asdf": true, "nvm": true, "pyenv": true, "rbenv": true, "sdk": true,
	"opam": true, "dune": true, "lein": true, "sbt": false, "ng": true, "nx": true, "turbo": true,
	"loginctl": true, "nvme": true, "zpool": true, "zfs": true, "kubeadm": true, "eksctl": true, "k3d": true, "skaffold": true, "argocd": true, "istioctl": true,
	"hg": true, "svn": true, "jj": true, "sl": true, "redis-cli": false, "crontab": false,
}

// HasSubcommands reports whether prog takes a subcommand as its first
// operand (git push, npm install).
func HasSubcommands(prog string) bool {
	if subcommandPrograms[prog] {
		return true
	}
	p := programs.Lookup(prog)
	return p != nil && p.Subcommands
}

var specs = map[string]*Spec{}

func init() {
	add := func(names string, s *Spec) {
		for _, n := range strings.Split(names, ",") {
			specs[n] = s
		}
	}
	// From the program registry: every entry that describes its command
	// line, and its subcommands' options ("git push").
	for _, p := range programs.All() {
		if !p.HasSpec() {
			continue
		}
		s := &Spec{desc: p.Options, Abbrev: p.Abbrev, InOrder: p.InOrder, SingleDashLong: p.SingleDashLong,
			FoldCase: p.FoldCase, Subcommands: p.Subcommands}
		add(strings.Join(p.Names, ","), s)
		for sub, o := range p.Subs {
			if o.Options == "" {
				continue
			}
			for _, n := range p.Names {
				specs[n+" "+sub] = &Spec{desc: o.Options, Abbrev: p.Abbrev, InOrder: p.InOrder, SingleDashLong: p.SingleDashLong, FoldCase: p.FoldCase}
			}
		}
	}
	// base64: GNU and BSD (-i/-o name the input and output files on BSD).
	add("base64", spec("d|D|decode i|input= o|output= b|break= w|wrap= ignore-garbage h|help version"))
	add("git", with(spec("C= c= git-dir= work-tree= exec-path=? config-env= bare no-pager p|paginate P namespace= literal-pathspecs glob-pathspecs noglob-pathspecs icase-pathspecs no-replace-objects no-optional-locks html-path man-path info-path super-prefix= list-cmds= attr-source= h|help v|version"), func(s *Spec) { s.Subcommands = true }))
	gitSub := func(sub, desc string) { specs["git "+sub] = spec(desc) }
	gitSub("push", "f|force force-with-lease=? force-if-includes no-force-with-lease d|delete mirror all branches tags follow-tags atomic n|dry-run porcelain prune v|verbose q|quiet u|set-upstream receive-pack|exec= repo= o|push-option= signed=? no-verify verify recurse-submodules= thin no-thin 4|ipv4 6|ipv6 progress")
	gitSub("reset", "hard soft mixed merge keep q|quiet N|intent-to-add p|patch pathspec-from-file= pathspec-file-nul recurse-submodules no-recurse-submodules no-refresh refresh")
	gitSub("clean", "d f|force i|interactive n|dry-run q|quiet e|exclude= x X")
	gitSub("checkout", "b= B= orphan= f|force m|merge q|quiet t|track=? no-track detach l ours theirs p|patch ignore-skip-worktree-bits ignore-other-worktrees overwrite-ignore no-overwrite-ignore recurse-submodules no-recurse-submodules progress no-progress conflict= pathspec-from-file= pathspec-file-nul overlay no-overlay guess no-guess")
	gitSub("switch", "c|create= C|force-create= d|detach discard-changes f|force m|merge q|quiet t|track=? no-track orphan= guess no-guess recurse-submodules no-recurse-submodules progress no-progress conflict= ignore-other-worktrees")
	gitSub("restore", "s|source= p|patch W|worktree S|staged q|quiet progress no-progress ours theirs m|merge conflict= ignore-unmerged ignore-skip-worktree-bits recurse-submodules no-recurse-submodules overlay no-overlay pathspec-from-file= pathspec-file-nul")
	gitSub("branch", "d|delete D f|force m|move M c|copy C l|list a|all r|remotes v|verbose q|quiet t|track=? no-track u|set-upstream-to= unset-upstream show-current contains= no-contains= merged= no-merged= points-at= sort= format= color=? no-color column=? no-column i|ignore-case abbrev= no-abbrev edit-description create-reflog")
	gitSub("stash", "p|patch k|keep-index no-keep-index u|include-untracked a|all q|quiet m|message= S|staged index pathspec-from-file= pathspec-file-nul")
	gitSub("rebase", "i|interactive x|exec= onto= root continue abort skip quit edit-todo autosquash no-autosquash autostash no-autostash keep-base f|force-rebase no-ff r|rebase-merges=? update-refs committer-date-is-author-date ignore-date s|strategy= X|strategy-option= S|gpg-sign=? q|quiet v|verbose n|no-stat stat no-verify verify empty= signoff")
	gitSub("commit", "a|all p|patch C|reuse-message= c|reedit-message= fixup= squash= reset-author short branch porcelain long z|null F|file= author= date= m|message= t|template= s|signoff no-signoff trailer= n|no-verify verify allow-empty allow-empty-message cleanup= e|edit no-edit amend no-post-rewrite i|include o|only pathspec-from-file= pathspec-file-nul u|untracked-files=? v|verbose q|quiet dry-run status no-status S|gpg-sign=? no-gpg-sign")
	gitSub("log", "S= G= pickaxe-regex pickaxe-all follow no-decorate decorate=? source L= n|max-count= skip= since|after= until|before= author= committer= grep= all-match invert-grep i|regexp-ignore-case merges no-merges first-parent all branches=? tags=? remotes=? graph oneline format|pretty=? abbrev-commit no-abbrev-commit p|u|patch s|no-patch stat=? shortstat name-only name-status numstat reverse date= color=? no-color relative-date walk-reflogs g output= ext-diff no-ext-diff textconv no-textconv")
	gitSub("show", "format|pretty=? abbrev-commit oneline stat=? name-only name-status p|patch s|no-patch color=? no-color quiet output= ext-diff no-ext-diff textconv no-textconv")
	gitSub("diff", "cached staged stat=? numstat shortstat name-only name-status color=? no-color w|ignore-all-space p|u|patch U|unified= output= ext-diff no-ext-diff textconv no-textconv check quiet exit-code R no-index word-diff=? minimal patience histogram diff-algorithm= relative=? a|text")
	gitSub("status", "s|short b|branch porcelain=? long v|verbose u|untracked-files=? ignore-submodules=? ignored=? z column=? no-column ahead-behind no-ahead-behind renames no-renames find-renames=?")
	gitSub("config", "global system local worktree f|file= blob= get get-all get-regexp get-urlmatch replace-all add unset unset-all rename-section remove-section l|list e|edit type= bool int bool-or-int path expiry-date z|null name-only show-origin show-scope default= includes no-includes")
	gitSub("worktree", "f|force detach checkout lock reason= q|quiet b= B= orphan track no-track guess-remote expire= porcelain z v|verbose")
	gitSub("tag", "a|annotate s|sign u|local-user= f|force d|delete v|verify n=? l|list sort= contains= no-contains= merged= no-merged= points-at= m|message= F|file= e|edit cleanup= create-reflog column=? format= color=? i|ignore-case")
	gitSub("rev-parse", "abbrev-ref=? short=? verify q|quiet show-toplevel show-prefix show-cdup git-dir absolute-git-dir git-common-dir is-inside-work-tree is-inside-git-dir is-bare-repository symbolic symbolic-full-name all branches=? tags=? remotes=? since= until= sq local-env-vars path-format= show-object-format=? default= prefix= flags no-flags revs-only no-revs")
	gitSub("ls-files", "c|cached d|deleted m|modified o|others i|ignored s|stage u|unmerged k|killed z x|exclude= X|exclude-from= exclude-per-directory= exclude-standard error-unmatch full-name recurse-submodules abbrev=? debug eol deduplicate format= t v f")
	gitSub("difftool", "x|extcmd= y|no-prompt prompt t|tool= g|gui no-gui d|dir-diff trust-exit-code no-trust-exit-code tool-help cached staged")
	gitSub("mergetool", "t|tool= y|no-prompt prompt g|gui no-gui tool-help O=")
	gitSub("send-email", "sendmail-cmd= smtp-server= to= cc= bcc= from= subject= in-reply-to= annotate compose dry-run quiet confirm= identity= smtp-user= smtp-pass=")
	gitSub("fetch", "all a|append atomic depth= deepen= shallow-since= shallow-exclude= unshallow update-shallow dry-run f|force k|keep multiple auto-maintenance auto-gc p|prune P|prune-tags n no-tags refetch refmap= t|tags recurse-submodules=? j|jobs= no-recurse-submodules set-upstream submodule-prefix= u|update-head-ok upload-pack= q|quiet v|verbose progress o|server-option= 4|ipv4 6|ipv6")
	gitSub("pull", "q|quiet v|verbose recurse-submodules=? commit no-commit edit no-edit ff no-ff ff-only rebase=? no-rebase autostash no-autostash s|strategy= X|strategy-option= all a|append depth= unshallow f|force p|prune tags no-tags")
	gitSub("clone", "l|local no-hardlinks shared q|quiet v|verbose n|no-checkout bare mirror o|origin= b|branch= u|upload-pack= template= c|config= depth= single-branch no-single-branch recurse-submodules=? separate-git-dir= j|jobs= filter= sparse")
	gitSub("add", "n|dry-run v|verbose f|force i|interactive p|patch e|edit u|update A|all no-ignore-removal no-all ignore-removal N|intent-to-add refresh ignore-errors ignore-missing renormalize chmod= pathspec-from-file= pathspec-file-nul")
	gitSub("rm", "f|force n|dry-run r cached ignore-unmatch sparse q|quiet pathspec-from-file= pathspec-file-nul")
	gitSub("mv", "f|force k n|dry-run v|verbose")
	gitSub("remote", "v|verbose")
	gitSub("blame", "b root show-stats L= l t S= reverse= first-parent p|porcelain line-porcelain incremental encoding= contents= date= M=? C=? ignore-rev= ignore-revs-file= color-lines color-by-age e|show-email w s c f|show-name n|show-number")
	gitSub("grep", "cached no-index untracked no-exclude-standard exclude-standard recurse-submodules a|text textconv no-textconv i|ignore-case I max-depth= r|recursive w|word-regexp v|invert-match h H full-name E|extended-regexp G|basic-regexp P|perl-regexp F|fixed-strings n|line-number column l|files-with-matches name-only L|files-without-match O|open-files-in-pager=? z|null o|only-matching c|count color=? no-color break heading p|show-function A|after-context= B|before-context= C|context= W|function-context m|max-count= threads= f= e= and or not all-match q|quiet")
	gitSub("help", "a|all g|guides c|config i|info m|man w|web")
	gitSub("merge", "commit no-commit edit no-edit ff no-ff ff-only squash no-squash s|strategy= X|strategy-option= m= F|file= abort continue quit q|quiet v|verbose allow-unrelated-histories no-verify")
	gitSub("cherry-pick", "e|edit n|no-commit m|mainline= x s|signoff ff continue abort quit skip")
	gitSub("filter-branch", "env-filter= tree-filter= index-filter= parent-filter= msg-filter= commit-filter= tag-name-filter= subdirectory-filter= prune-empty original= d= state-branch= f|force")
	gitSub("update-ref", "d m= no-deref z stdin create-reflog")
	gitSub("reflog", "all expire= expire-unreachable= rewrite updateref stale-fix n|dry-run verbose")
	gitSub("gc", "aggressive auto prune=? no-prune q|quiet force keep-largest-pack")
	gitSub("submodule", "q|quiet")
	gitSub("archive", "format= l|list prefix= o|output= add-file= remote= exec= v|verbose")
	gitSub("bundle", "q|quiet")
	gitSub("apply", "stat numstat summary check index cached intent-to-add 3|threeway R|reverse reject z p= C= unidiff-zero apply no-add allow-binary-replacement|binary exclude= include= ignore-space-change|ignore-whitespace whitespace= inaccurate-eof v|verbose recount directory= unsafe-paths")
	gitSub("shortlog", "n|numbered s|summary e|email format= c|committer w=? group=")
	gitSub("describe", "all tags contains abbrev= candidates= exact-match debug long match= exclude= always first-parent dirty=? broken=")
	gitSub("for-each-ref", "count= shell perl python tcl sort= format= color=? points-at= merged= no-merged= contains= no-contains= ignore-case")
	gitSub("cat-file", "t s e p batch=? batch-check=? batch-all-objects textconv filters path= allow-unknown-type follow-symlinks unordered buffer")
	gitSub("ls-tree", "d r t l|long z name-only name-status object-only full-name full-tree abbrev=? format=")
	gitSub("ls-remote", "h|heads t|tags refs upload-pack= q|quiet exit-code get-url symref sort= o|server-option=")
}
