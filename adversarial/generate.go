package adversarial

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// Want is the decision a generated case must get.
type Want int

const (
	// WantDeny: the rewriting keeps the command statically knowable, so a
	// floor or deny seed must stay deny.
	WantDeny Want = iota
	// WantNotAllow: the rewriting makes the command unknowable; it may be
	// ask or deny, never allow.
	WantNotAllow
)

func (w Want) String() string {
	if w == WantDeny {
		return "deny"
	}
	return "not-allow"
}

// Case is one generated command.
type Case struct {
	Command   string
	Want      Want
	Seed      string // the seed's name
	Family    string // the kind of rewriting: quote, forms, path, wrapper, nest, …
	Transform string // what exactly was done, for messages
}

// Generate returns every seed of [Seeds] times every transform, without
// duplicates, in a stable order.
func Generate() []Case {
	g := &gen{seen: map[string]bool{}}
	for _, s := range Seeds() {
		g.seed(s)
	}
	return g.out
}

type gen struct {
	out  []Case
	seen map[string]bool
	cur  Seed
}

func (g *gen) add(family, transform, cmd string, want Want) {
	if g.seen[cmd] {
		return
	}
	g.seen[cmd] = true
	if g.cur.Layer == "ask" {
		// Seeds that must ask stay at least ask however they are rewritten.
		want = WantNotAllow
	}
	g.out = append(g.out, Case{Command: cmd, Want: want, Seed: g.cur.Name, Family: family, Transform: transform})
}

// simple is a rendered simple command: [pre |] [wrappers] prog args [redirect].
type simple struct {
	pre    string
	wrap   []string
	prog   string
	args   []string
	tail   []string // words after the arguments (a wrapper's closing words: find's \;)
	rop    string
	rtgt   string
	rpos   int // 0: after the words, 1: before them, 2: right after the program
	sep    string
	noRdir bool
}

func (c simple) words() []string {
	w := append([]string{}, c.wrap...)
	w = append(w, c.prog)
	r := ""
	if c.rop != "" && !c.noRdir {
		r = c.rop + " " + c.rtgt
	}
	args := append(append([]string{}, c.args...), c.tail...)
	switch {
	case r != "" && c.rpos == 1:
		w = append([]string{r}, w...)
		w = append(w, args...)
	case r != "" && c.rpos == 2:
		w = append(w, r)
		w = append(w, args...)
	default:
		w = append(w, args...)
		if r != "" {
			w = append(w, r)
		}
	}
	return w
}

func (c simple) String() string {
	sep := c.sep
	if sep == "" {
		sep = " "
	}
	s := strings.Join(c.words(), sep)
	if c.pre != "" {
		s = c.pre + " " + s
	}
	return s
}

// redirSuffix is the redirect as text, "" when none.
func (c simple) redirSuffix() string {
	if c.rop == "" {
		return ""
	}
	return " " + c.rop + " " + c.rtgt
}

func (g *gen) canonical() simple {
	s := g.cur
	c := simple{prog: s.Prog, args: append([]string{}, s.Forms[0]...)}
	if len(s.Pre) > 0 {
		c.pre = s.Pre[0]
	}
	if s.Redir != nil {
		c.rop, c.rtgt = s.Redir.Ops[0], s.Redir.Targets[0]
	}
	return c
}

func (g *gen) seed(s Seed) {
	g.cur = s
	if s.Prog == "" {
		for i, t := range s.Texts {
			g.add("forms", fmt.Sprintf("text[%d]", i), t, WantDeny)
		}
		g.contexts(s.Texts[0])
		g.unknowableText(s.Texts[0])
		return
	}
	base := g.canonical()
	x := base.String()
	g.add("forms", "canonical", x, WantDeny)
	g.forms(base)
	g.quotes(base)
	g.paths(base)
	g.wrappers(base)
	g.layout(base)
	g.contexts(x)
	g.unknowable(base)
	g.combos(base)
	if s.Redir != nil {
		g.compoundRedirects(base)
	}
}

func (g *gen) forms(base simple) {
	s := g.cur
	for i, f := range s.Forms {
		c := base
		c.args = f
		g.add("forms", fmt.Sprintf("form[%d]", i), c.String(), WantDeny)
	}
	for i, p := range s.Pre {
		c := base
		c.pre = p
		g.add("forms", fmt.Sprintf("pre[%d]", i), c.String(), WantDeny)
	}
	if s.Redir != nil {
		for _, op := range s.Redir.Ops {
			c := base
			c.rop = op
			g.add("redirect", "op "+op, c.String(), WantDeny)
		}
		for _, t := range s.Redir.Targets {
			c := base
			c.rtgt = t
			g.add("redirect", "target "+t, c.String(), WantDeny)
		}
		for pos, name := range []string{"suffix", "prefix", "middle"} {
			c := base
			c.rpos = pos
			g.add("redirect", "position "+name, c.String(), WantDeny)
		}
		glued := base
		glued.noRdir = true
		g.add("redirect", "no space before target", glued.String()+" "+base.rop+base.rtgt, WantDeny)
		g.add("redirect", "no spaces at all", glued.String()+base.rop+base.rtgt, WantDeny)
		// exec redirections: every later command writes the target.
		c := base
		c.noRdir = true
		g.add("redirect", "exec redirect", "exec "+base.rop+" "+base.rtgt+"; "+c.String(), WantDeny)
		g.add("redirect", "exec fd", "exec 3"+strings.TrimLeft(base.rop, "&12")+" "+base.rtgt+"; "+c.String()+" >&3", WantDeny)
	}
}

// quotes rewrites each plain word (program, each argument, the redirect
// target) in every quoting form, then every word at once.
func (g *gen) quotes(base simple) {
	for _, q := range quoteForms {
		want := WantDeny
		if q.unknowable {
			want = WantNotAllow
		}
		if Plain(base.prog) {
			c := base
			c.prog = q.fn(base.prog)
			g.add("quote", "program "+q.name, c.String(), want)
		}
		for i, a := range base.args {
			if !Plain(a) {
				continue
			}
			c := base
			c.args = append([]string{}, base.args...)
			c.args[i] = q.fn(a)
			g.add("quote", fmt.Sprintf("arg[%d] %s", i, q.name), c.String(), want)
		}
		if base.rtgt != "" && Plain(base.rtgt) {
			c := base
			c.rtgt = q.fn(base.rtgt)
			g.add("quote", "target "+q.name, c.String(), want)
		}
		if q.name == "continuation" {
			continue
		}
		all := base
		if Plain(base.prog) {
			all.prog = q.fn(base.prog)
		}
		all.args = nil
		for _, a := range base.args {
			if Plain(a) {
				a = q.fn(a)
			}
			all.args = append(all.args, a)
		}
		if base.rtgt != "" && Plain(base.rtgt) {
			all.rtgt = q.fn(base.rtgt)
		}
		g.add("quote", "all "+q.name, all.String(), want)
	}
}

func (g *gen) paths(base simple) {
	for _, p := range g.cur.Paths {
		c := base
		c.prog = p
		g.add("path", p, c.String(), WantDeny)
		c.prog = "'" + p + "'"
		g.add("path", p+" quoted", c.String(), WantDeny)
	}
}

// wrapper is a command prefix that runs its operand.
type wrapper struct {
	words string
	ok    func(s Seed, c simple) bool
	// suffix closes the wrapper after the command's words (find -exec … \;).
	suffix string
}

func always(Seed, simple) bool           { return true }
func builtinOnly(s Seed, _ simple) bool  { return s.Builtin }
func busyboxOnly(s Seed, _ simple) bool  { return s.Busybox }
func notStdin(s Seed, _ simple) bool     { return !s.Stdin }
func notPipeline(_ Seed, c simple) bool  { return c.pre == "" }
func notStdinPipe(s Seed, c simple) bool { return !s.Stdin && c.pre == "" }
func appends(s Seed, c simple) bool      { return notStdinPipe(s, c) && !s.NoAppend }

var wrappers = []wrapper{
	{"sudo", always, ""}, {"sudo -u root", always, ""}, {"sudo -E", always, ""}, {"sudo -n", always, ""}, {"sudo --", always, ""},
	{"sudo -u root --", always, ""}, {"sudo -i", always, ""}, {"doas", always, ""}, {"doas -u root", always, ""},
	{"env", always, ""}, {"env -i", always, ""}, {"env A=1", always, ""}, {"env -u HOME", always, ""}, {"env --", always, ""},
	{"env -i PATH=/usr/bin", always, ""}, {"command", always, ""}, {"command -p", always, ""}, {"command --", always, ""},
	{"builtin", builtinOnly, ""}, {"exec", always, ""}, {"exec -a x", always, ""}, {"exec -c", always, ""},
	{"nice", always, ""}, {"nice -n 5", always, ""}, {"nice -5", always, ""}, {"nice --adjustment=5", always, ""},
	{"nohup", always, ""}, {"timeout 5", always, ""}, {"timeout -s KILL 5", always, ""}, {"timeout --foreground 5s", always, ""},
	{"timeout -k 1 5", always, ""}, {"time", notPipeline, ""}, {"time -p", notPipeline, ""}, {"stdbuf -oL", always, ""},
	{"stdbuf -o0 -e0", always, ""}, {"ionice -c3", always, ""}, {"ionice -c 2 -n 7", always, ""}, {"setsid", always, ""},
	{"setsid -f", always, ""}, {"flock /tmp/l", always, ""}, {"flock -x /tmp/l", always, ""}, {"busybox", busyboxOnly, ""},
	{"xargs", appends, ""}, {"xargs -0", appends, ""}, {"chroot /", always, ""}, {"strace -f -o /dev/null", always, ""},
	{"fakeroot", always, ""}, {"unbuffer", always, ""}, {"taskset -c 0", always, ""}, {"taskset 1", always, ""},
	{"chrt -f 1", always, ""}, {"runuser -u root --", always, ""}, {"unshare -r", always, ""}, {"eatmydata", always, ""},
	{"setpriv --reuid=0", always, ""}, {"prlimit --nproc=10", always, ""},
	// stacked
	{"sudo env", always, ""}, {"env nice -n 5", always, ""}, {"nohup timeout 5", always, ""}, {"sudo -u root timeout 5", always, ""},
	{"time nice", notPipeline, ""}, {"nice nohup", always, ""}, {"exec env -i", always, ""}, {"sudo sudo", always, ""},
	{"env env", always, ""}, {"timeout 5 timeout 5", always, ""}, {"stdbuf -oL nice", always, ""},
	{"env -i sudo -u root nohup", always, ""}, {"command exec", always, ""}, {"busybox env", busyboxOnly, ""},
	{"sudo busybox", busyboxOnly, ""}, {"doas env A=1 nice", always, ""},
	// options and "--" after wrappers, quoted and absolute wrappers
	{"nice -n 5 --", always, ""}, {"timeout -- 5", always, ""}, {"stdbuf -oL --", always, ""}, {"env -i --", always, ""},
	{"ionice -c3 --", always, ""}, {"setsid --", always, ""}, {"exec --", always, ""}, {"exec -l", always, ""},
	{"command -p --", always, ""}, {"'sudo'", always, ""}, {"\\sudo", always, ""}, {"\"env\"", always, ""},
	{"$'nice'", always, ""}, {"/usr/bin/sudo", always, ""}, {"/usr/bin/env", always, ""}, {"/usr/bin/timeout 5", always, ""},
	{"/usr/bin/nice", always, ""}, {"/bin/busybox", busyboxOnly, ""},
	{"xargs -n1", appends, ""}, {"xargs -P4", appends, ""}, {"xargs -L1", appends, ""},
	{"xargs -a /dev/null", appends, ""}, {"xargs -d '\\n'", appends, ""},
	{"find . -maxdepth 0 -exec", appends, "\\;"}, {"find . -exec", appends, "{} +"},
	{"parallel", appends, "::: 1"},
	// assignments and redirections before the command
	{"A=1 B=2", always, ""}, {"x=", always, ""}, {"LC_ALL=C", always, ""}, {"2>/dev/null", always, ""},
	{"</dev/null", notStdin, ""}, {"0<&-", notStdin, ""},
}

func (g *gen) wrappers(base simple) {
	for _, w := range wrappers {
		if !w.ok(g.cur, base) {
			continue
		}
		c := base
		c.wrap = strings.Fields(w.words)
		c.tail = strings.Fields(w.suffix)
		g.add("wrapper", w.words, c.String(), WantDeny)
	}
}

func (g *gen) layout(base simple) {
	w := base.words()
	pre := ""
	if base.pre != "" {
		pre = base.pre + " "
	}
	x := base.String()
	g.add("layout", "continuation between words", pre+strings.Join(w, " \\\n"), WantDeny)
	g.add("layout", "tabs", pre+strings.Join(w, "\t"), WantDeny)
	g.add("layout", "spaces", pre+strings.Join(w, "   "), WantDeny)
	g.layoutText(x)
}

func (g *gen) layoutText(x string) {
	g.add("layout", "leading blank lines", "\n\n   "+x, WantDeny)
	g.add("layout", "trailing comment", x+" # done", WantDeny)
	g.add("layout", "comment line before", "# first\n"+x, WantDeny)
	g.add("layout", "crlf comment", x+" #\r\n", WantDeny)
	g.add("layout", "crlf statements", "true;\r\n"+x+";\r\n", WantDeny)
	g.add("layout", "crlf lines", "true #\r\n"+x+" #\r\n", WantDeny)
	g.add("layout", "semicolon", x+";", WantDeny)
	g.add("layout", "trailing newlines", x+"\n\n", WantDeny)
}

// nester embeds shell code x in a command that runs it.
type nester struct {
	name     string
	fn       func(x string) string
	terminal bool // ends with a heredoc: nothing may follow it on its line
}

func nq(prefix string) func(string) string {
	return func(x string) string { return prefix + SQ(x) }
}

var nesters = []nester{
	{"bash -c '…'", nq("bash -c "), false},
	{"sh -c \"…\"", func(x string) string { return "sh -c " + DQ(x) }, false},
	{"eval '…'", nq("eval "), false},
	{"xargs sh -c '…'", nq("xargs sh -c "), false},
	{"find -exec sh -c '…' ;", func(x string) string { return "find . -exec sh -c " + SQ(x) + ` \;` }, false},
	{"bash <<< '…'", nq("bash <<< "), false},
	{"bash -c \"…\"", func(x string) string { return "bash -c " + DQ(x) }, false},
	{"eval \"…\"", func(x string) string { return "eval " + DQ(x) }, false},
	{"eval $'…'", func(x string) string { return "eval " + ANSI(x) }, false},
	{"bash -c $'…'", func(x string) string { return "bash -c " + ANSI(x) }, false},
	{"bash -lc", nq("bash -lc "), false},
	{"bash -ec", nq("bash -ec "), false},
	{"bash -c --", nq("bash -c -- "), false},
	{"bash --norc -c", nq("bash --norc -c "), false},
	{"bash -o errexit -c", nq("bash -o errexit -c "), false},
	{"dash -c", nq("dash -c "), false},
	{"zsh -c", nq("zsh -c "), false},
	{"ksh -c", nq("ksh -c "), false},
	{"find -exec bash -c {} +", func(x string) string { return "find . -exec bash -c " + SQ(x) + " {} +" }, false},
	{"find -execdir sh -c", func(x string) string { return "find . -maxdepth 0 -execdir sh -c " + SQ(x) + ` \;` }, false},
	{"sudo sh -c", nq("sudo sh -c "), false},
	{"su -c", nq("su -c "), false},
	{"su - root -c", nq("su - root -c "), false},
	{"trap EXIT", func(x string) string { return "trap " + SQ(x) + " EXIT" }, false},
	{"trap DEBUG", func(x string) string { return "trap " + SQ(x) + " DEBUG; :" }, false},
	{"trap ERR", func(x string) string { return "trap " + SQ(x) + " ERR; false" }, false},
	{"ssh host", nq("ssh host "), false},
	{"watch", nq("watch "), false},
	{"script -c", func(x string) string { return "script -q -c " + SQ(x) + " /dev/null" }, false},
	{"flock -c", nq("flock /tmp/l -c "), false},
	{"parallel :::", nq("parallel ::: "), false},
	{"command eval", nq("command eval "), false},
	{"builtin eval", nq("builtin eval "), false},
	{"exec bash -c", nq("exec bash -c "), false},
	{"timeout sh -c", nq("timeout 5 sh -c "), false},
	{"nohup bash -c &", func(x string) string { return "nohup bash -c " + SQ(x) + " &" }, false},
	{"source /dev/stdin <<<", nq("source /dev/stdin <<< "), false},
	{"bash -c -e", nq("bash -c -e "), false},
	{"sh -ec", nq("sh -ec "), false},
	{"bash +e -c", nq("bash +e -c "), false},
	{"bash -ic", nq("bash -ic "), false},
	{"bash --login -c", nq("bash --login -c "), false},
	{"su -c … root", func(x string) string { return "su -c " + SQ(x) + " root" }, false},
	{"runuser -l root -c", nq("runuser -l root -c "), false},
	{"sudo -s --", nq("sudo -s -- "), false},
	{"tmux new-session -d", nq("tmux new-session -d "), false},
	{"screen -dm sh -c", nq("screen -dmS s sh -c "), false},
	{"echo | at now", func(x string) string { return "echo " + SQ(x) + " | at now" }, false},
	{"at now <<<", nq("at now <<< "), false},
	{"systemd-run sh -c", nq("systemd-run --user sh -c "), false},
	{"eval --", nq("eval -- "), false},
	{"env bash -c", nq("env bash -c "), false},
	{"command bash -c", nq("command bash -c "), false},
	{"exec -a x bash -c", nq("exec -a x bash -c "), false},
	{"bash heredoc", func(x string) string { return "bash <<'EOF'\n" + x + "\nEOF" }, true},
	{"sh heredoc dash", func(x string) string { return "sh <<-'EOF'\n\t" + x + "\n\tEOF" }, true},
}

// core nesters, combined at depth 2 (the first six) and 3 (the first four).
func core(n int) []nester { return nesters[:n] }

// substitution forms: x runs inside them.
var substs = []nester{
	{"$(…)", func(x string) string { return "$(" + x + ")" }, false},
	{"echo $(…)", func(x string) string { return "echo $(" + x + ")" }, false},
	{"echo \"$(…)\"", func(x string) string { return "echo \"$(" + x + ")\"" }, false},
	{"x=$(…)", func(x string) string { return "x=$(" + x + ")" }, false},
	{"x=\"$(…)\" true", func(x string) string { return "x=\"$(" + x + ")\" true" }, false},
	{"export x=$(…)", func(x string) string { return "export x=$(" + x + ")" }, false},
	{"declare x=$(…)", func(x string) string { return "declare x=$(" + x + ")" }, false},
	{": ${x:-$(…)}", func(x string) string { return ": ${x:-$(" + x + ")}" }, false},
	{"echo \"${x:=$(…)}\"", func(x string) string { return "echo \"${x:=$(" + x + ")}\"" }, false},
	{"cat <(…)", func(x string) string { return "cat <(" + x + ")" }, false},
	{": >(…)", func(x string) string { return ": >(" + x + ")" }, false},
	{"cat < <(…)", func(x string) string { return "cat < <(" + x + ")" }, false},
	{"diff <(…) <(true)", func(x string) string { return "diff <(" + x + ") <(true)" }, false},
	{"[[ -n $(…) ]]", func(x string) string { return "[[ -n $(" + x + ") ]]" }, false},
	{"[ -n \"$(…)\" ]", func(x string) string { return "[ -n \"$(" + x + ")\" ]" }, false},
	{"test -n \"$(…)\"", func(x string) string { return "test -n \"$(" + x + ")\"" }, false},
	{"for i in $(…)", func(x string) string { return "for i in $(" + x + "); do :; done" }, false},
	{"case $(…) in", func(x string) string { return "case $(" + x + ") in *) ;; esac" }, false},
	{"echo $(echo $(…))", func(x string) string { return "echo $(echo $(" + x + "))" }, false},
	{"$( (…) )", func(x string) string { return "$( (" + x + ") )" }, false},
	{"a[$(…)]=1", func(x string) string { return "a[$(" + x + ")]=1" }, false},
	{"echo ${a[$(…)]}", func(x string) string { return "echo ${a[$(" + x + ")]}" }, false},
	{"(( $(…) ))", func(x string) string { return "(( $(" + x + ") ))" }, false},
	{"echo $(( $(…) ))", func(x string) string { return "echo $(( $(" + x + ") ))" }, false},
	{"cat <<< \"$(…)\"", func(x string) string { return "cat <<< \"$(" + x + ")\"" }, false},
	{"exec 3< <(…)", func(x string) string { return "exec 3< <(" + x + ")" }, false},
	{": $[ $(…) ]", func(x string) string { return ": $[ $(" + x + ") ]" }, false},
	{"eval \"echo $(…)\"", func(x string) string { return "eval \"echo $(" + x + ")\"" }, false},
	{"\"$(…)\"", func(x string) string { return "\"$(" + x + ")\"" }, false},
	{"cat heredoc $(…)", func(x string) string { return "cat <<EOF\n$(" + x + ")\nEOF" }, true},
}

var backticks = []nester{
	{"`…`", func(x string) string { return "`" + x + "`" }, false},
	{"echo `…`", func(x string) string { return "echo `" + x + "`" }, false},
	{"x=`…`", func(x string) string { return "x=`" + x + "`" }, false},
}

// compound positions.
var compounds = []nester{
	{"(…)", func(x string) string { return "(" + x + ")" }, false},
	{"( … )", func(x string) string { return "( " + x + " )" }, false},
	{"{ …; }", func(x string) string { return "{ " + x + "; }" }, false},
	{"{ newline }", func(x string) string { return "{\n" + x + "\n}" }, false},
	{"if true; then …; fi", func(x string) string { return "if true; then " + x + "; fi" }, false},
	{"if …; then", func(x string) string { return "if " + x + "; then :; fi" }, false},
	{"else …", func(x string) string { return "if false; then :; else " + x + "; fi" }, false},
	{"elif …", func(x string) string { return "if false; then :; elif " + x + "; then :; fi" }, false},
	{"while …; do", func(x string) string { return "while " + x + "; do break; done" }, false},
	{"until …; do", func(x string) string { return "until " + x + "; do break; done" }, false},
	{"while true; do …", func(x string) string { return "while true; do " + x + "; break; done" }, false},
	{"for i in 1; do …", func(x string) string { return "for i in 1; do " + x + "; done" }, false},
	{"for newline", func(x string) string { return "for i in 1 2; do\n" + x + "\ndone" }, false},
	{"for ((…))", func(x string) string { return "for ((i=0; i<1; i++)); do " + x + "; done" }, false},
	{"case a) …", func(x string) string { return "case a in a) " + x + ";; esac" }, false},
	{"case *) …", func(x string) string { return "case a in b) ;; *) " + x + " ;; esac" }, false},
	{"true && …", func(x string) string { return "true && " + x }, false},
	{"false || …", func(x string) string { return "false || " + x }, false},
	{"true; …", func(x string) string { return "true; " + x }, false},
	{"…; true", func(x string) string { return x + "; true" }, false},
	{"newline before", func(x string) string { return "true\n" + x }, false},
	{"newline after", func(x string) string { return x + "\ntrue" }, false},
	{"true | …", func(x string) string { return "true | " + x }, false},
	{"… | cat", func(x string) string { return x + " | cat" }, false},
	{"true |& …", func(x string) string { return "true |& " + x }, false},
	{"true & …", func(x string) string { return "true & " + x }, false},
	{"… &", func(x string) string { return x + " &" }, false},
	{"… & wait", func(x string) string { return x + " & wait" }, false},
	{"! …", func(x string) string { return "! " + x }, false},
	{"time …", func(x string) string { return "time " + x }, false},
	{"coproc { …; }", func(x string) string { return "coproc { " + x + "; }" }, false},
	{"f() { …; }; f", func(x string) string { return "f() { " + x + "; }; f" }, false},
	{"function f { …; }; f", func(x string) string { return "function f { " + x + "; }; f" }, false},
	{"f() ( … ); f", func(x string) string { return "f() ( " + x + " ); f" }, false},
	{"[[ ]] && …", func(x string) string { return "[[ -e / ]] && " + x }, false},
	{"test && …", func(x string) string { return "test -e / && " + x }, false},
	{"(( 1 )) && …", func(x string) string { return "(( 1 )) && " + x }, false},
	{"{ { …; }; }", func(x string) string { return "{ { " + x + "; }; }" }, false},
	{"( ( … ) )", func(x string) string { return "( ( " + x + " ) )" }, false},
	{"… || true", func(x string) string { return x + " || true" }, false},
	{"nested if", func(x string) string { return "if true; then if true; then " + x + "; fi; fi" }, false},
	{"false && : || …", func(x string) string { return "false && : || " + x }, false},
	{"coproc NAME { …; }", func(x string) string { return "coproc job { " + x + "; }" }, false},
	{"( … ) &", func(x string) string { return "( " + x + " ) &" }, false},
	{"… & disown", func(x string) string { return x + " & disown" }, false},
	{"… |& cat", func(x string) string { return x + " |& cat" }, false},
	{"until false; do …", func(x string) string { return "until false; do " + x + "; break; done" }, false},
	{"while :; do …", func(x string) string { return "while :; do " + x + "; break; done" }, false},
	{"if ! …; then", func(x string) string { return "if ! " + x + "; then :; fi" }, false},
	{"case (x) …", func(x string) string { return "case x in (x) " + x + ";; esac" }, false},
	{"{ …; } 2>/dev/null", func(x string) string { return "{ " + x + "; } 2>/dev/null" }, false},
}

// stdin forms: static text fed to a shell; knowable, so deny.
var stdinForms = []nester{
	{"echo '…' | sh", func(x string) string { return "echo " + SQ(x) + " | sh" }, false},
	{"printf '%s\\n' '…' | bash", func(x string) string { return "printf '%s\\n' " + SQ(x) + " | bash" }, false},
	{"echo '…' | bash -s", func(x string) string { return "echo " + SQ(x) + " | bash -s" }, false},
	{"bash < <(echo '…')", func(x string) string { return "bash < <(echo " + SQ(x) + ")" }, false},
	{"source <(echo '…')", func(x string) string { return "source <(echo " + SQ(x) + ")" }, false},
	{"sh -s <<< '…'", nq("sh -s <<< "), false},
	{"echo '…' | source /dev/stdin", func(x string) string { return "echo " + SQ(x) + " | source /dev/stdin" }, false},
	{"bash /dev/stdin <<< '…'", nq("bash /dev/stdin <<< "), false},
	{"echo '…' | bash -", func(x string) string { return "echo " + SQ(x) + " | bash -" }, false},
	{"echo '…' | env sh", func(x string) string { return "echo " + SQ(x) + " | env sh" }, false},
	{"echo '…' | sudo sh", func(x string) string { return "echo " + SQ(x) + " | sudo sh" }, false},
	{"echo '…' | sh -s --", func(x string) string { return "echo " + SQ(x) + " | sh -s --" }, false},
	{"(echo '…') | sh", func(x string) string { return "(echo " + SQ(x) + ") | sh" }, false},
	{"{ echo '…'; } | sh", func(x string) string { return "{ echo " + SQ(x) + "; } | sh" }, false},
	{"echo '…' | tee /dev/null | sh", func(x string) string { return "echo " + SQ(x) + " | tee /dev/null | sh" }, false},
	{"cat <<< '…' | sh", func(x string) string { return "cat <<< " + SQ(x) + " | sh" }, false},
	{"sh <<< $'…'", func(x string) string { return "sh <<< " + ANSI(x) }, false},
	{"sh <<< \"…\"", func(x string) string { return "sh <<< " + DQ(x) }, false},
	{"cat heredoc | sh", func(x string) string { return "cat <<'EOF' | sh\n" + x + "\nEOF" }, true},
	{"cat heredoc | bash -s", func(x string) string { return "cat <<'EOF' | bash -s\n" + x + "\nEOF" }, true},
}

// contexts wraps the whole command x (as text) in nestings, substitutions,
// compound positions and stdin forms.
func (g *gen) contexts(x string) {
	for _, n := range nesters {
		g.add("nest", "depth 1: "+n.name, n.fn(x), WantDeny)
	}
	for _, a := range core(6) {
		for _, b := range core(6) {
			g.add("nest", "depth 2: "+a.name+" in "+b.name, b.fn(a.fn(x)), WantDeny)
		}
	}
	for _, a := range core(4) {
		for _, b := range core(4) {
			for _, c := range core(4) {
				g.add("nest", "depth 3: "+a.name+" in "+b.name+" in "+c.name, c.fn(b.fn(a.fn(x))), WantDeny)
			}
		}
	}
	for _, s := range substs {
		g.add("subst", s.name, s.fn(x), WantDeny)
	}
	if !strings.ContainsAny(x, "`\\$") {
		for _, s := range backticks {
			g.add("subst", s.name, s.fn(x), WantDeny)
		}
	}
	for _, c := range compounds {
		g.add("compound", c.name, c.fn(x), WantDeny)
	}
	for _, s := range stdinForms {
		g.add("stdin", s.name, s.fn(x), WantDeny)
	}
	if g.cur.Prog == "" {
		g.layoutText(x)
	}
	b64 := base64.StdEncoding.EncodeToString([]byte(x + "\n"))
	g.add("encoded", "echo b64 | base64 -d | sh", "echo "+b64+" | base64 -d | sh", WantDeny)
	g.add("encoded", "base64 -d <<< b64 | bash", "base64 -d <<< "+b64+" | bash", WantDeny)
	g.add("encoded", "base64 --decode | bash", "echo "+b64+" | base64 --decode | bash", WantDeny)
	g.add("encoded", "base64 -d | bash -s", "echo "+b64+" | base64 -d | bash -s", WantDeny)
	g.add("encoded", "printf | base64 -d | sh", "printf %s "+b64+" | base64 -d | sh", WantDeny)
	g.add("encoded", "base64 -d <<< | sudo sh", "base64 -d <<< "+b64+" | sudo sh", WantDeny)
	g.add("encoded", "xxd -r -p | sh", fmt.Sprintf("echo %x | xxd -r -p | sh", x+"\n"), WantDeny)
}

// unknowable rewritings of the program word: never allow. When the seed's
// danger is a redirect that stays outside the rewriting, the write is still
// knowable and must stay deny.
func (g *gen) unknowable(base simple) {
	p := base.prog
	noR := base
	noR.noRdir = true
	rest := strings.Join(noR.words()[1:], " ")
	if len(base.wrap) > 0 {
		rest = strings.Join(noR.words()[len(base.wrap)+1:], " ")
	}
	rs := base.redirSuffix()
	pre := ""
	if base.pre != "" {
		pre = base.pre + " "
	}
	x := base.String()
	keep := WantNotAllow
	if base.rop != "" {
		keep = WantDeny // the redirect target is still static
	}
	sp := func(s string) string {
		if rest == "" {
			return s
		}
		return s + " " + rest
	}
	type form struct {
		name string
		text string
		want Want
	}
	forms := []form{
		{"${IFS}", pre + strings.Join(append([]string{p}, noR.words()[1:]...), "${IFS}") + rs, keep},
		{"x=p; $x", "x=" + p + "; " + pre + sp("$x") + rs, keep},
		{"x=p; \"$x\"", "x=" + p + "; " + pre + sp(`"$x"`) + rs, keep},
		{"x=p; ${x}", "x=" + p + "; " + pre + sp("${x}") + rs, keep},
		{"${!x}", "y=" + p + "; x=y; " + pre + sp("${!x}") + rs, keep},
		{"$(echo p)", pre + sp("$(echo "+p+")") + rs, keep},
		{"`echo p`", pre + sp("`echo "+p+"`") + rs, keep},
		{"$(printf %s p)", pre + sp("$(printf %s "+p+")") + rs, keep},
		{"p with ${x}", pre + sp(p[:1]+"${x}"+p[1:]) + rs, keep},
		{"${x:-p}", pre + sp("${x:-"+p+"}") + rs, keep},
		{"\"${x-p}\"", pre + sp(`"${x-`+p+`}"`) + rs, keep},
		{"\"$(command -v p)\"", pre + sp(`"$(command -v `+p+`)"`) + rs, keep},
		{"$(which p)", pre + sp("$(which "+p+")") + rs, keep},
		{"fullwidth", pre + sp(fullwidth(p)) + rs, keep},
		{"zero-width space", pre + sp(p[:1]+"\u200b"+p[1:]) + rs, keep},
		{"PATH=…", "PATH=/tmp:$PATH " + x, keep},
		{"f() { \"$@\"; }", "f() { \"$@\"; }; " + pre + "f " + sp(p) + rs, keep},
		{"set -- …; \"$@\"", "set -- " + sp(p) + "; " + pre + `"$@"` + rs, keep},
		{"arr=(…); \"${arr[@]}\"", "arr=(" + sp(p) + "); " + pre + `"${arr[@]}"` + rs, keep},
		{"printf -v x", "printf -v x %s " + p + "; " + pre + sp("$x") + rs, keep},
		{"read x <<< p", "read -r x <<< " + p + "; " + pre + sp("$x") + rs, keep},
		{"hash -p", "hash -p /bin/" + p + " ls; " + pre + sp("ls") + rs, keep},
		{"expand_aliases", "shopt -s expand_aliases\nalias x=" + p + "\n" + pre + sp("x") + rs, keep},
		{"alias same line", "alias x=" + SQ(x) + "; x", WantNotAllow},
		{"function shadows p", p + "() { command " + p + " \"$@\"; }; " + x, keep},
		{"nbsp", pre + p + "\u00a0" + rest + rs, keep},
	}
	if len(p) >= 2 {
		forms = append(forms,
			form{"glob /???/p?", pre + sp("/???/"+p[:1]+strings.Repeat("?", len(p)-1)) + rs, keep},
			form{"glob /bin/p[x]", pre + sp("/bin/"+p[:len(p)-1]+"["+p[len(p)-1:]+"]") + rs, keep},
			form{"glob /usr/*/p", pre + sp("/usr/*/"+p) + rs, keep},
			form{"glob p*", pre + sp(p[:1]+"*") + rs, keep},
		)
	}
	for _, f := range forms {
		g.add("unknowable", f.name, f.text, f.want)
	}
	g.unknowableText(x)
}

// unknowableText hides the whole command in code built at run time.
func (g *gen) unknowableText(x string) {
	forms := []struct{ name, text string }{
		{"eval \"$(echo …)\"", "eval \"$(echo " + SQ(x) + ")\""},
		{"x='…'; eval \"$x\"", "x=" + SQ(x) + "; eval \"$x\""},
		{"x='…'; bash -c \"$x\"", "x=" + SQ(x) + "; bash -c \"$x\""},
		{"$0 -c", "$0 -c " + SQ(x)},
		{"command_not_found_handle", "command_not_found_handle() { " + x + "; }; zzz"},
		{"eval base64", "eval \"$(echo " + base64.StdEncoding.EncodeToString([]byte(x)) + " | base64 -d)\""},
		{"rev | sh", "echo " + SQ(reverse(x)) + " | rev | sh"},
		{"xxd | sh", "xxd -r -p <<< " + fmt.Sprintf("%x", x+"\n") + " | sh"},
		{"printf escapes | sh", "printf " + SQ(octal(x)+`\n`) + " | sh"},
		{"source <(printf)", "source <(printf " + SQ(octal(x)) + ")"},
		{"BASH_ENV", "BASH_ENV=<(echo " + SQ(x) + ") bash -c :"},
		{"$'…' via variable", "c=" + ANSI(x) + "; eval \"$c\""},
	}
	for _, f := range forms {
		g.add("unknowable", f.name, f.text, WantNotAllow)
	}
}

// combos pair transforms of different families.
func (g *gen) combos(base simple) {
	var ws []wrapper
	for _, w := range wrappers {
		if w.ok(g.cur, base) && !strings.Contains(w.words, "busybox") {
			ws = append(ws, w)
		}
	}
	c6 := core(6)
	for i, w := range ws {
		c := base
		c.wrap = strings.Fields(w.words)
		c.tail = strings.Fields(w.suffix)
		x := c.String()
		n := c6[i%len(c6)]
		g.add("combo", "wrapper "+w.words+" in "+n.name, n.fn(x), WantDeny)
		k := compounds[i%len(compounds)]
		g.add("combo", "wrapper "+w.words+" in "+k.name, k.fn(x), WantDeny)
	}
	for i, q := range quoteForms {
		if !Plain(base.prog) {
			break
		}
		if q.unknowable {
			continue
		}
		c := base
		c.prog = q.fn(base.prog)
		x := c.String()
		n := c6[i%len(c6)]
		g.add("combo", "program "+q.name+" in "+n.name, n.fn(x), WantDeny)
		k := compounds[(i*3)%len(compounds)]
		g.add("combo", "program "+q.name+" in "+k.name, k.fn(x), WantDeny)
		w := ws[i%len(ws)]
		c.wrap = strings.Fields(w.words)
		c.tail = strings.Fields(w.suffix)
		g.add("combo", "program "+q.name+" under "+w.words, c.String(), WantDeny)
	}
	for i, p := range g.cur.Paths {
		c := base
		c.prog = p
		w := ws[(i*7)%len(ws)]
		c.wrap = strings.Fields(w.words)
		c.tail = strings.Fields(w.suffix)
		g.add("combo", "path "+p+" under "+w.words, c.String(), WantDeny)
		n := c6[i%len(c6)]
		g.add("combo", "path "+p+" in "+n.name, n.fn(c.String()), WantDeny)
	}
	for i, f := range g.cur.Forms {
		c := base
		c.args = f
		n := nesters[i%len(nesters)]
		if n.terminal {
			n = c6[0]
		}
		g.add("combo", fmt.Sprintf("form[%d] in %s", i, n.name), n.fn(c.String()), WantDeny)
		k := compounds[(i*5)%len(compounds)]
		g.add("combo", fmt.Sprintf("form[%d] in %s", i, k.name), k.fn(c.String()), WantDeny)
	}
	for i, a := range core(4) {
		c := base
		w := ws[(i*11)%len(ws)]
		c.wrap = strings.Fields(w.words)
		c.tail = strings.Fields(w.suffix)
		if Plain(base.prog) {
			c.prog = quoteForms[i%4].fn(base.prog)
		}
		x := c.String()
		b := core(4)[(i+1)%4]
		d := core(4)[(i+2)%4]
		k := compounds[(i*7)%len(compounds)]
		g.add("combo", "depth 3 with "+w.words+" and quoting", k.fn(d.fn(b.fn(a.fn(x)))), WantDeny)
	}
}

// compoundRedirects moves a seed's redirect onto a compound command around
// it: the redirect applies to the whole compound.
func (g *gen) compoundRedirects(base simple) {
	c := base
	c.noRdir = true
	x := c.String()
	r := base.rop + " " + base.rtgt
	forms := []struct{ name, text string }{
		{"{ …; } >", "{ " + x + "; } " + r},
		{"( … ) >", "(" + x + ") " + r},
		{"if … fi >", "if true; then " + x + "; fi " + r},
		{"for … done >", "for i in 1; do " + x + "; done " + r},
		{"while false … done >", "while false; do " + x + "; done " + r},
		{"case … esac >", "case a in a) " + x + ";; esac " + r},
		{"f() { … } >", "f() { " + x + "; } " + r + "; f"},
		{"$( ) of the writer", "$(echo " + strings.Fields(x)[0] + ") " + strings.Join(strings.Fields(x)[1:], " ") + " " + r},
		{"bash -c '…' >", "bash -c " + SQ(x) + " " + r},
		{"{ …; } > nested", "{ { " + x + "; } " + r + "; }"},
	}
	for _, f := range forms {
		g.add("redirect", "compound "+f.name, f.text, WantDeny)
	}
}

func fullwidth(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r > ' ' && r < 0x7f {
			r += 0xFEE0
		}
		b.WriteRune(r)
	}
	return b.String()
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func octal(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, `\%03o`, s[i])
	}
	return b.String()
}
