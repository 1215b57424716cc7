package parser

import (
	"reflect"
	"strings"
	"testing"
)

// segSummary is a compact view of a segment for table tests:
// "prog arg arg" of the unwrapped argv, with the kind when not top.
func argvs(c *Command) []string {
	out := []string{}
	for _, s := range c.Segments {
		out = append(out, strings.Join(s.Argv, " "))
	}
	return out
}

func mustParse(t *testing.T, text string, opts ...Option) *Command {
	t.Helper()
	c, err := Parse(text, opts...)
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	return c
}

func TestSegmentsEverywhere(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"ls -la", []string{"ls -la"}},
		{"  git reset --hard  ", []string{"git reset --hard"}},
		{"a | b |& c", []string{"a", "b", "c"}},
		{"a && b || c; d & e", []string{"a", "b", "c", "d", "e"}},
		{"(a; b)", []string{"a", "b"}},
		{"{ a; b; }", []string{"a", "b"}},
		{"if a; then b; elif c; then d; else e; fi", []string{"a", "b", "c", "d", "e"}},
		{"while a; do b; done; until c; do d; done", []string{"a", "b", "c", "d"}},
		{"for x in a b; do c $x; done", []string{"c a", "c b"}}, // a short static list: the body once per item
		{"for x in a $y; do c $x; done", []string{"c $x"}},
		{"case $x in a) b;; *) c;; esac", []string{"b", "c"}},
		{"f() { a; }; f", []string{"a", "f", "a"}}, // the body, the call, the body again below the call
		{"echo $(a) `b`", []string{"echo $(a) `b`", "a", "b"}},
		{"x=$(a) b", []string{"b", "a"}},
		{"echo > $(a)", []string{"a", "echo"}},
		{"cat <<EOF\n$(a)\nEOF", []string{"a", "cat"}},
		{"cat <<'EOF'\n$(a)\nEOF", []string{"cat"}},
		{"[[ $(a) == x ]]", []string{"[[", "a"}},
		{"(( $(a) + 1 ))", []string{"((", "a"}},
		{"echo ${x:-$(a)}", []string{"echo ${x:-$(a)}", "a"}},
		{"diff <(a) >(b)", []string{"diff <(a) >(b)", "a", "b"}},
		{"time a", []string{"a"}},
		{"! a", []string{"a"}},
		{"coproc a", []string{"a"}},
		{"echo 'rm -rf /'", []string{"echo rm -rf /"}},
		{"grep \"git reset --hard\" log", []string{"grep git reset --hard log"}},
		{"# rm -rf /", []string{}},
		{"ls \\\r\nnpm install x", []string{"ls \r", "npm install x"}},
		{"echo a\\\nb", []string{"echo ab"}},
	}
	for _, tt := range tests {
		c := mustParse(t, tt.in)
		if got := argvs(c); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) argvs = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestUnquoting(t *testing.T) {
	tests := []struct {
		in      string
		program string
		argv    []string
	}{
		{`r''m -rf x`, "rm", []string{"rm", "-rf", "x"}},
		{`\rm -rf x`, "rm", []string{"rm", "-rf", "x"}},
		{`"rm" -rf x`, "rm", []string{"rm", "-rf", "x"}},
		{`$'\x72m' -rf x`, "rm", []string{"rm", "-rf", "x"}},
		{`$'\162m' x`, "rm", []string{"rm", "x"}},
		{`'sudo' rm x`, "rm", []string{"rm", "x"}},
		{`/usr/bin/../bin/rm x`, "rm", []string{"/usr/bin/../bin/rm", "x"}},
		{`\rm.exe x`, "rm", []string{"rm.exe", "x"}},
		{`"$HOME"`, "", []string{`"$HOME"`}},
		{`ls /path/with\ space/file`, "ls", []string{"ls", "/path/with space/file"}},
		{`echo "a\"b" 'c\d'`, "echo", []string{"echo", `a"b`, `c\d`}},
		{`echo {a,b}c`, "echo", []string{"echo", "ac", "bc"}},
		{`rm -rf /{etc,usr}`, "rm", []string{"rm", "-rf", "/etc", "/usr"}},
	}
	for _, tt := range tests {
		c := mustParse(t, tt.in)
		if len(c.Segments) == 0 {
			t.Errorf("%q: no segments", tt.in)
			continue
		}
		s := c.Segments[0]
		if s.Program != tt.program || !reflect.DeepEqual(s.Argv, tt.argv) {
			t.Errorf("%q: program %q argv %q, want %q %q", tt.in, s.Program, s.Argv, tt.program, tt.argv)
		}
	}
}

func TestWrappers(t *testing.T) {
	tests := []struct {
		in       string
		argv     string
		wrappers []string
	}{
		{"sudo rm -rf /", "rm -rf /", []string{"sudo"}},
		{"sudo -u root -E rm x", "rm x", []string{"sudo"}},
		{"sudo -- git reset --hard", "git reset --hard", []string{"sudo"}},
		{"sudo command git reset --hard", "git reset --hard", []string{"sudo", "command"}},
		{"doas -u root rm x", "rm x", []string{"doas"}},
		{"env -i A=1 B=2 rm x", "rm x", []string{"env"}},
		{"env -u PATH git status", "git status", []string{"env"}},
		{"env -uPATH git status", "git status", []string{"env"}},
		{"env -C /tmp git status", "git status", []string{"env"}},
		{"env -S 'rm -rf' /", "rm -rf /", []string{"env"}},
		{"command rm x", "rm x", []string{"command"}},
		{"command -v rm", "command -v rm", nil},
		{"builtin cd x", "cd x", []string{"builtin"}},
		{"exec rm -rf /", "rm -rf /", []string{"exec"}},
		{"nice -n 10 rm x", "rm x", []string{"nice"}},
		{"nice -10 rm x", "rm x", []string{"nice"}},
		{"nohup rm x", "rm x", []string{"nohup"}},
		{"timeout -s KILL 5 rm x", "rm x", []string{"timeout"}},
		{"timeout 5s rm x", "rm x", []string{"timeout"}},
		{"stdbuf -oL rm x", "rm x", []string{"stdbuf"}},
		{"ionice -c 3 rm x", "rm x", []string{"ionice"}},
		{"setsid -f rm x", "rm x", []string{"setsid"}},
		{"flock /tmp/l rm x", "rm x", []string{"flock"}},
		{"chroot /mnt rm x", "rm x", []string{"chroot"}},
		{"xargs -0 rm -f", "rm -f", []string{"xargs"}},
		{"busybox rm -rf /", "rm -rf /", []string{"busybox"}},
		{"sudo env nice -n5 timeout 3 rm x", "rm x", []string{"sudo", "env", "nice", "timeout"}},
		{"strace -o out rm x", "rm x", []string{"strace"}},
	}
	for _, tt := range tests {
		c := mustParse(t, tt.in)
		s := c.Segments[0]
		var ws []string
		for _, w := range s.Wrappers {
			ws = append(ws, w.Name)
		}
		if got := strings.Join(s.Argv, " "); got != tt.argv || !reflect.DeepEqual(ws, tt.wrappers) {
			t.Errorf("%q: argv %q wrappers %q, want %q %q", tt.in, got, ws, tt.argv, tt.wrappers)
		}
	}
}

func TestFlags(t *testing.T) {
	tests := []struct {
		in    string
		flags []string
	}{
		{"rm -rf x", []string{"force", "recursive"}},
		{"rm -Rf x", []string{"force", "recursive"}},
		{"rm --recursive --force x", []string{"force", "recursive"}},
		{"rm --recur --forc x", []string{"force", "recursive"}},
		{"rm -r -v -f x", []string{"force", "recursive", "verbose"}},
		{"rm x -rf", []string{"force", "recursive"}},
		{"rm -- -rf", []string{}},
		{"git push origin main --force", []string{"force"}},
		{"git push -fu origin main", []string{"force", "set-upstream"}},
		{"git push origin +main", []string{"force"}},
		{"git push --force-with-lease", []string{"force-with-lease"}},
		// Terraform's options take one dash, after its subcommand too.
		{"terraform apply -auto-approve", []string{"auto-approve"}},
		{"terraform -chdir=infra destroy -auto-approve -var-file=prod.tfvars", []string{"auto-approve", "chdir", "var-file"}},
		{"tofu plan -destroy -out=p", []string{"destroy", "out"}},
		// go's and java's too.
		{"go test -run=TestX -count 1 -v ./...", []string{"count", "run", "v"}},
		{"go build -o out -ldflags=-s .", []string{"ldflags", "o"}},
		{"go -C sub vet -vettool=x ./...", []string{"C", "vettool"}},
		{"java -jar app.jar -Xmx1g", []string{"Xmx1g", "jar"}},
		{"java -Dk=v -cp lib Main --x", []string{"Dk", "cp"}},
		{"sort --compress-prog=gzip x", []string{"compress-program"}},
		{"git log --oneline -20", []string{"NUM", "oneline"}},
		{"tar -xzf a.tgz", []string{"extract", "file", "gzip"}},
	}
	for _, tt := range tests {
		s := mustParse(t, tt.in).Segments[0]
		if !reflect.DeepEqual(s.Flags, tt.flags) {
			t.Errorf("%q: flags %q, want %q", tt.in, s.Flags, tt.flags)
		}
	}
}

func TestPathClasses(t *testing.T) {
	opts := []Option{Workspace("/w/proj"), Home("/home/u")}
	tests := []struct {
		in    string
		class string
	}{
		{"rm -rf /", ClassRoot},
		{"rm -rf /*", ClassRoot},
		{"rm -rf ~", ClassHome},
		{"rm -rf ~/", ClassHome},
		{"rm -rf $HOME", ClassHome},
		{"rm -rf \"$HOME\"", ClassHome},
		{"rm -rf ${HOME}/", ClassHome},
		{"rm -rf /home/u", ClassHome},
		{"rm -rf ~/Documents", ClassHomeSub},
		{"rm -rf /usr", ClassSystemTop},
		{"rm -rf /etc/", ClassSystemTop},
		{"rm -rf /var/log", ClassSystem},
		{"rm /etc/passwd", ClassCredentials},
		{"rm -rf build", ClassWorkspace},
		{"rm -rf ./build", ClassWorkspace},
		{"rm -rf ../other", ClassOutside},
		{"rm -rf .", ClassWorkspace},
		{"rm -rf /tmp/x", ClassTmp},
		{"rm .git/config", ClassGit},
		{"rm .claude/settings.json", ClassAgentConfig},
		{"rm ~/.bashrc", ClassRC},
		{"rm ~/.ssh/id_rsa", ClassSSH},
		{"rm .github/workflows/ci.yml", ClassCI},
		{"rm .envrc", ClassEnvrc},
		{"rm .env", ClassSecret},
		{"rm $X/y", ClassDynamic},
		{"rm /dev/sda", ClassDevice},
		{"rm /dev/null", ClassNull},
		{"rm /???/r?", ClassRoot},    // a glob reaching into / counts as / itself
		{"rm x/*/y", ClassWorkspace}, // below x/, ending in y (issue 14)
		{"rm x/.*/y", ClassDynamic},
		{"rm *", ClassWorkspace},
		{"rm ~user/x", ClassDynamic},
	}
	for _, tt := range tests {
		s := mustParse(t, tt.in, opts...).Segments[0]
		if len(s.Operands) == 0 || s.Operands[len(s.Operands)-1].Class != tt.class {
			t.Errorf("%q: operands %+v, want class %s", tt.in, s.Operands, tt.class)
		}
	}
}

func TestCwdTracking(t *testing.T) {
	opts := []Option{Workspace("/w/proj")}
	tests := []struct {
		in    string
		class string // of the last segment's last operand
	}{
		{"cd .. && rm -rf build", ClassOutside},
		{"( cd ..; rm -rf build )", ClassOutside},
		{"cd src && rm -rf build", ClassWorkspace},
		{"cd $X && rm -rf build", ClassUnknown},
		{"(cd ..); rm -rf build", ClassWorkspace},
		{"cd / && rm -rf *", ClassRoot},
		{"cd && rm -rf *", ClassHome},
		// A cd that may have failed or not run: what follows may run in
		// either directory, and a path takes the stricter class.
		{"if true; then cd /; fi; rm -rf build", ClassOutside}, // /w/proj/build or /build
		{"if true; then cd /; fi; rm -rf *", ClassRoot},
		// (/w is a drive's root in the slash form, ClassRoot.)
		{"cd src; rm -rf ..", ClassRoot},           // /w/proj or, cd src failing, /w
		{"cd src || rm -rf ..", ClassRoot},         // runs only when the cd failed
		{"! cd src && rm -rf ..", ClassRoot},       // likewise
		{"cd src && rm -rf ..", ClassWorkspace},    // runs only after the cd
		{"cd src; cd sub; rm -rf x", ClassUnknown}, // three places: not known
		{"if cd src; then :; else rm -rf ..; fi", ClassRoot},
		{"case x in x) cd /;& *) rm -rf *;; esac", ClassRoot},
		{"cd /; rm -rf src", ClassOutside}, // /src, or /w/proj/src when cd / failed
		{"git -C /tmp clean -fd x", ClassTmp},
		{"env -C /tmp rm -rf x", ClassTmp},
	}
	for _, tt := range tests {
		c := mustParse(t, tt.in, opts...)
		s := c.Segments[len(c.Segments)-1]
		if len(s.Operands) == 0 || s.Operands[len(s.Operands)-1].Class != tt.class {
			t.Errorf("%q: last operands %+v, want class %s", tt.in, s.Operands, tt.class)
		}
	}
}

func TestCodePositions(t *testing.T) {
	tests := []struct {
		in   string
		want []string // argv of every segment
	}{
		{"bash -c 'rm -rf /'", []string{"bash -c rm -rf /", "rm -rf /"}},
		{"sh -xc 'rm x; ls'", []string{"sh -xc rm x; ls", "rm x", "ls"}},
		{"bash -o pipefail -c 'rm x'", []string{"bash -o pipefail -c rm x", "rm x"}},
		{"eval 'rm x'", []string{"eval rm x", "rm x"}},
		{"eval rm x", []string{"eval rm x", "rm x"}},
		{"trap 'rm x' EXIT", []string{"trap rm x EXIT", "rm x"}},
		{"alias ls='rm x'", []string{"alias ls=rm x", "rm x"}},
		{"watch rm x", []string{"watch rm x", "rm x"}},
		{"su -c 'rm x'", []string{"su -c rm x", "rm x"}},
		{"ssh host 'rm -rf /'", []string{"ssh host rm -rf /", "rm -rf /"}},
		{"ssh -p 22 host rm -rf /", []string{"ssh -p 22 host rm -rf /", "rm -rf /"}},
		{"ssh -o ProxyCommand='nc x' host", []string{"ssh -o ProxyCommand=nc x host", "nc x"}},
		{"rsync -e 'ssh -i k' a b", []string{"rsync -e ssh -i k a b", "ssh -i k"}},
		{"git rebase -x 'make test' main", []string{"git rebase -x make test main", "make test"}},
		{"git -c alias.x='!rm y' x", []string{"git -c alias.x=!rm y x", "rm y"}},
		{"git -c core.pager='rm y' log", []string{"git -c core.pager=rm y log", "rm y"}},
		{"tar --to-command='rm y' -xf a.tar", []string{"tar --to-command=rm y -xf a.tar", "rm y"}},
		{"tar -I 'rm y' -xf a.tar", []string{"tar -I rm y -xf a.tar", "rm y"}},
		{"sort --compress-program=rm x", []string{"sort --compress-program=rm x", "rm"}},
		{"find . -exec rm -rf {} \\;", []string{"find . -exec rm -rf {} ;", "rm -rf {}"}},
		{"find . -name x -execdir sh -c 'rm y' \\;", []string{"find . -name x -execdir sh -c rm y ;", "sh -c rm y", "rm y"}},
		{"xargs sh -c 'rm y'", []string{"sh -c rm y", "rm y"}},
		{"bash <<EOF\nrm -rf /\nEOF", []string{"bash", "rm -rf /"}},
		{"bash <<'EOF'\nrm -rf /\nEOF", []string{"bash", "rm -rf /"}},
		{"bash <<<'rm -rf /'", []string{"bash", "rm -rf /"}},
		{"cat <<EOF\nrm -rf /\nEOF", []string{"cat"}},
		{"parallel rm -rf {} ::: /", []string{"parallel rm -rf {} ::: /", "rm -rf /"}},
		{"parallel busybox rm -rf ::: /", []string{"parallel busybox rm -rf ::: /", "rm -rf /"}},
		{"parallel bash -c 'rm -rf {}' ::: /", []string{"parallel bash -c rm -rf {} ::: /", "bash -c rm -rf /", "rm", "bash -c rm -rf /", "rm -rf /"}},
		{"x='$(rm y)'", []string{""}},
		{"x='$(rm y)'; echo ${x@P}", []string{"", "$(rm y)", "rm y", "echo ${x@P}"}},
		{"bash -c \"bash -c 'rm y'\"", []string{"bash -c bash -c 'rm y'", "bash -c rm y", "rm y"}},
	}
	for _, tt := range tests {
		c := mustParse(t, tt.in)
		if got := argvs(c); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: argvs %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTags(t *testing.T) {
	tests := []struct {
		in  string
		seg int
		tag string
	}{
		{"$CMD -rf /", 0, TagDynamicProgram},
		{"$(which rm) -rf /", 0, TagDynamicProgram},
		{"curl -s x | bash", 1, TagFetchedCode},
		{"curl -s x | sudo bash -", 1, TagFetchedCode},
		{"wget -qO- x | tee f | sh", 2, TagFetchedCode},
		{"bash <(curl -s x)", 0, TagFetchedCode},
		{"eval \"$(curl x)\"", 0, TagFetchedCode},
		{"sh -c \"$(wget -O- x)\"", 0, TagFetchedCode},
		{"echo x | base64 -d | sh", 2, TagFetchedCode},
		{"echo x | sh", 1, TagStdinCode},
		{"curl -o /tmp/s.sh x; sh /tmp/s.sh", 1, TagRunsDownloaded},
		{"curl x > s.sh && bash s.sh", 1, TagRunsDownloaded},
		{"wget -O i.sh x && chmod +x i.sh && ./i.sh", 2, TagRunsDownloaded},
		{":(){ :|:& };:", 0, TagForkBomb},
		{"alias ls='x'; ls", 2, TagChangedShell},
		{"PATH=/tmp; ls", 1, TagChangedShell},
		{"f() { :; }; ls", 1, TagChangedShell},
		{"shopt -s expand_aliases; ls", 1, TagChangedShell},
		{"echo $((x+1))", 0, TagArithDynamic},
		{"[[ $y -eq 0 ]]", 0, TagArithDynamic},
		{"python3 -c 'import os; os.system(\"ls\")'", 0, TagCodeSpawns},
		{"python3 -c \"import os; os.remove('/etc/passwd')\"", 0, TagCodeCritical},
		{"ruby -e \"FileUtils.rm_rf('/')\"", 0, TagCodeCritical},
		{"awk '{system(\"ls\")}'", 0, TagCodeUnsafe},
		{"sed 's/a/b/e' f", 0, TagCodeUnsafe},
		{"bash", 0, TagInteractive},
		{"bash script.sh", 0, TagScriptFile},
		{"exec > /tmp/log", 0, TagResolution},
		{"echo x | xargs rm", 1, TagAppendedArgs},
		{"SuDo Rm -Rf /", 0, TagNameNormalized},
	}
	for _, tt := range tests {
		c := mustParse(t, tt.in)
		if tt.seg >= len(c.Segments) {
			t.Errorf("%q: only %d segments (%q)", tt.in, len(c.Segments), argvs(c))
			continue
		}
		if s := c.Segments[tt.seg]; !s.HasTag(tt.tag) {
			t.Errorf("%q: segment %d (%q) tags %q, want %s", tt.in, tt.seg, s.Argv, s.Tags, tt.tag)
		}
	}
}

func TestDataIsNotCode(t *testing.T) {
	for _, in := range []string{
		"echo 'rm -rf /'", "grep 'git reset --hard' file.txt", "cat <<<'rm -rf /home/user'",
		"awk '{print $1}' <<EOF\nrm -rf /\nEOF", "wc -l <<EOF\nrm -rf /\nEOF", "echo $'rm -rf /'",
		"printf '%s\\n' 'rm -rf /'", "rg 'rm -rf' .",
	} {
		c := mustParse(t, in)
		if len(c.Segments) != 1 {
			t.Errorf("%q: %d segments %q, want 1", in, len(c.Segments), argvs(c))
		}
	}
}

func TestRedirects(t *testing.T) {
	c := mustParse(t, "{ a; b; } > out.txt 2>/dev/null", Workspace("/w"))
	for _, s := range c.Segments {
		if len(s.Writes) != 1 || s.Writes[0].Class != ClassWorkspace || !s.Redirects[0].Inherited {
			t.Errorf("%q: writes %+v redirects %+v", s.Argv, s.Writes, s.Redirects)
		}
	}
	c = mustParse(t, "for x in a; do echo; done > ~/.bashrc")
	if w := c.Segments[0].Writes; len(w) != 1 || w[0].Class != ClassRC {
		t.Errorf("done > ~/.bashrc: writes %+v", w)
	}
}

func TestParseErrorAndLimits(t *testing.T) {
	c, err := Parse("echo 'unterminated")
	if err == nil || c.Shape.Error == nil || !c.Shape.Error.Incomplete {
		t.Errorf("unterminated quote: err %v shape %+v", err, c.Shape.Error)
	}
	c, _ = Parse(strings.Repeat("(", 500) + "a" + strings.Repeat(")", 500))
	if c.Shape.Limit != "depth" {
		t.Errorf("deep nesting: limit %q", c.Shape.Limit)
	}
	c, _ = Parse(strings.Repeat("a;", 2000))
	if c.Shape.Limit != "segments" {
		t.Errorf("many segments: limit %q", c.Shape.Limit)
	}
	c, _ = Parse(strings.Repeat("x", DefaultMaxBytes+1))
	if c.Shape.Limit != "size" {
		t.Errorf("large: limit %q", c.Shape.Limit)
	}
	nested := strings.Repeat("eval ", 12) + "rm x"
	c, _ = Parse(nested)
	if c.Shape.Limit != "recursion" {
		t.Errorf("deep bash -c: limit %q", c.Shape.Limit)
	}
}

func TestFromArgv(t *testing.T) {
	c, err := FromArgv([]string{"sh", "-c", "rm -rf /; ls"})
	if err != nil {
		t.Fatal(err)
	}
	if got := argvs(c); !reflect.DeepEqual(got, []string{"sh -c rm -rf /; ls", "rm -rf /", "ls"}) {
		t.Errorf("argvs %q", got)
	}
	c, _ = FromArgv([]string{"echo", "$(rm x)"})
	if len(c.Segments) != 1 || c.Segments[0].Dynamic[1] {
		t.Errorf("argv words are literal: %+v", c.Segments)
	}
}

// Option values that are paths into secret places count as reads, whatever
// the spelling (--opt=PATH, -oPATH); other option values do not.
func TestOptionValueReads(t *testing.T) {
	opts := []Option{Workspace("/w/proj"), Home("/home/u"), Cwd("/w/proj")}
	tests := []struct {
		in    string
		class string // class of the read, "" for no read
	}{
		{"file --magic-file=/home/u/.ssh/id_rsa x", ClassSSH},
		{"file -m/home/u/.ssh/id_rsa x", ClassSSH},
		{"hexdump --format-file=/home/u/.ssh/id_rsa x", ClassSSH},
		{"foo --in=/etc/shadow", ClassCredentials},
		{"foo --cfg=/home/u/.aws/credentials", ClassSecret},
		{"foo --format=%s/%d x", ""},
		{"foo --out=/tmp/x", ""},
		{"foo -I/usr/include x", ""},
	}
	for _, tt := range tests {
		s := mustParse(t, tt.in, opts...).Segments[0]
		got := ""
		for _, r := range s.Reads {
			if r.Text != "x" { // the operand x is read by every program here
				got = r.Class
			}
		}
		if got != tt.class {
			t.Errorf("%q: read class %q, want %q (reads %+v)", tt.in, got, tt.class, s.Reads)
		}
	}
}
