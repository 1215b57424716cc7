package parser

import (
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/rivumi/rivumi/internal/realpath"
	"github.com/rivumi/rivumi/internal/winpath"
	"github.com/rivumi/rivumi/programs"
	"github.com/rivumi/rivumi/rules"
)

// Path classes (Operand.Class). A path gets the first class that applies, in
// this order.
const (
	ClassDynamic      = "dynamic"      // cannot be known statically
	ClassUnknown      = "unknown"      // relative, and the cwd is not known
	ClassNet          = "net"          // /dev/tcp/…, /dev/udp/…
	ClassNull         = "null"         // /dev/null, /dev/stdout, /dev/fd/N …: harmless
	ClassDevice       = "device"       // block devices and memory: /dev/sda, /dev/nvme0n1, /dev/mem …
	ClassCredentials  = "credentials"  // /etc/passwd, /etc/shadow, /etc/sudoers …
	ClassRoot         = "root"         // / itself (or a glob of its entries)
	ClassHome         = "home"         // the home directory itself (or a glob of its entries)
	ClassSystemTop    = "system-top"   // a top-level system directory itself: /etc, /usr, /var …
	ClassGit          = "git"          // inside a .git directory
	ClassAgentConfig  = "agent-config" // .claude/, .gemini/, .codex/, rivumi's own config …
	ClassInstructions = "instructions" // CLAUDE.md, AGENTS.md …: instructions agents load every session
	ClassProjectCode  = "project-code" // files programs load and run from the project: conftest.py, .mvn/jvm.config, rust-toolchain.toml …
	ClassRC           = "rc"           // shell and tool start-up files: .bashrc, .profile, .gitconfig …
	ClassSSH          = "ssh"          // inside a .ssh directory
	ClassCI           = "ci"           // CI workflows: .github/workflows/ …
	ClassEnvrc        = "envrc"        // .envrc (direnv runs it)
	ClassSecret       = "secret"       // .env, keys, cloud credentials
	ClassWorkspace    = "workspace"    // inside the workspace
	ClassTmp          = "tmp"          // /tmp, /var/tmp
	ClassSystem       = "system"       // below a system directory
	ClassHomeSub      = "home-sub"     // below home, outside the workspace
	ClassPublic       = "public"       // a public file, as read: ~/.ssh/*.pub, ~/.ssh/known_hosts (only Reads carry it)
	ClassOutside      = "outside"      // anywhere else
)

// virtualWS stands for an unknown workspace: it cannot appear in a real
// argv (NUL), and .. from it does not reach /.
const virtualWS = "/\x00/\x00/\x00/\x00/\x00/\x00/\x00/\x00/ws"

const virtualHome = "/\x00home"

var systemTop = map[string]bool{
	"/bin": true, "/boot": true, "/dev": true, "/etc": true, "/home": true, "/lib": true,
	"/lib32": true, "/lib64": true, "/libx32": true, "/opt": true, "/proc": true, "/root": true,
	"/run": true, "/sbin": true, "/srv": true, "/sys": true, "/usr": true, "/var": true,
	"/snap": true, "/nix": true, "/mnt": true, "/media": true, "/System": true, "/Library": true,
	"/Applications": true, "/Users": true, "/private": true, "/Volumes": true, "/cores": true,
	"/usr/bin": true, "/usr/sbin": true, "/usr/lib": true, "/usr/lib64": true, "/usr/local": true,
	"/usr/share": true, "/usr/include": true, "/usr/local/bin": true, "/usr/local/lib": true,
	"/var/lib": true, "/var/log": false, "/etc/ssh": true, "/etc/ssl": true, "/private/etc": true,
	"/private/var": true,
}

var credentialFiles = map[string]bool{
	"/etc/passwd": true, "/etc/shadow": true, "/etc/gshadow": true, "/etc/group": true,
	"/etc/sudoers": true, "/etc/master.passwd": true, "/private/etc/passwd": true,
	"/private/etc/sudoers": true, "/etc/security/opasswd": true, "/etc/pam.d": true,
}

var nullPaths = map[string]bool{
	"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/stdin": true,
	"/dev/tty": true, "/dev/zero": true, "/dev/random": true, "/dev/urandom": true,
	"/dev/full": true,
}

var devicePrefixes = []string{
	"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk",
	"/dev/rdisk", "/dev/mapper/", "/dev/dm-", "/dev/md", "/dev/loop", "/dev/sr", "/dev/mem",
	"/dev/kmem", "/dev/port", "/dev/nbd", "/dev/zd", "/dev/bcache", "/dev/root", "/dev/ram",
	"/dev/mtd", "/dev/fd0", "/dev/block/",
}

var agentDirs = map[string]bool{
	".claude": true, ".gemini": true, ".codex": true, ".cursor": true, ".aider": true,
	".continue": true, ".windsurf": true, ".rivumi": true, ".vscode": true, ".idea": true,
	".husky": true, ".devcontainer": true, ".clinerules": true, ".roo": true, ".kiro": true, ".amazonq": true,
	".kilocode": true, ".qwen": true, ".zed": true, ".hg": true, ".opencode": true, ".goose": true,
	".pi": true, ".omp": true, ".copilot": true,
}

var agentFiles = map[string]bool{
	".rivumi.yaml": true, ".rivumi.yml": true, ".mcp.json": true, ".aider.conf.yml": true,
	".clinerules": true, ".devcontainer.json": true,
	"opencode.json": true, "crush.json": true, "lefthook-local.yml": true, ".lefthook-local.yml": true,
	"mise.toml": true, ".mise.toml": true, ".nvim.lua": true, ".exrc": true, ".yarnrc": true, ".yarnrc.yml": false,
	".tool-versions": true, ".pnpmfile.cjs": true, ".npmrc": false,
	".pre-commit-config.yaml": true, ".gitattributes": true,
	".gitmodules": true, ".lefthook.yml": true, "lefthook.yml": true,
}

// instructionFiles are read by agents as instructions at every session:
// changing them needs consent (an injected prompt would persist), but agents
// legitimately edit them, so they ask rather than deny.
var instructionFiles = map[string]bool{
	"claude.md": true, "claude.local.md": true, "agents.md": true, "agent.md": true, "gemini.md": true,
	"copilot-instructions.md": true, ".windsurfrules": true, ".rules": true, ".cursorrules": true,
	"conventions.md": false,
}

var rcFiles = map[string]bool{
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".bash_logout": true,
	".profile": true, ".zshrc": true, ".zprofile": true, ".zshenv": true, ".zlogin": true,
	".zlogout": true, ".inputrc": true, ".kshrc": true, ".mkshrc": true, ".cshrc": true,
	".tcshrc": true, ".login": true, ".gitconfig": true, ".yarnrc": true, ".curlrc": true, ".wgetrc": true, ".vimrc": true, ".exrc": true,
	".nanorc": true, ".tmux.conf": true, ".screenrc": true, ".xinitrc": true, ".xprofile": true,
	"config.fish": true, ".pythonrc": true, ".pdbrc": true, ".irbrc": true, ".lesskey": true,
	"bash.bashrc": true, "environment": true, "crontab": true, ".bash_aliases": true, "profile": true,
	"zshenv": true, "zshrc": true, "zprofile": true, "zlogin": true, ".zshenv.local": true,
}

var ciDirs = []string{".github/workflows", ".github/actions", ".circleci", ".buildkite", ".gitlab",
	".forgejo/workflows", ".gitea/workflows", ".woodpecker", ".github/instructions"}

var ciFiles = map[string]bool{
	".gitlab-ci.yml": true, ".travis.yml": true, "Jenkinsfile": true, "azure-pipelines.yml": true, ".woodpecker.yml": true,
	".drone.yml": true, "bitbucket-pipelines.yml": true, "cloudbuild.yaml": true,
}

var secretNames = map[string]bool{
	".env": true, ".netrc": true, "_netrc": true, ".pgpass": true, ".pypirc": true,
	"credentials": true, "credentials.json": true, "credentials.db": true, ".git-credentials": true,
	"id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true, "id_ecdsa_sk": true,
	"id_ed25519_sk": true, ".htpasswd": true, "secrets.yml": true, "secrets.yaml": true,
	"secrets.json": true, "service-account.json": true, "terraform.tfstate": true,
	".vault-token": true, "kubeconfig": true, "master.key": true, "access_tokens.db": true,
	".npmrc": true, ".my.cnf": true, "secrets.toml": true, ".dev.vars": true, "credentials.toml": true,
	".credentials.json": true, "oauth_creds.json": true, "hosts.json": true, "access-token": true, "keys.txt": true,
	"rclone.conf": true, "krb5.keytab": true, "logins.json": true, "key4.db": true, "cookies.sqlite": true,
	"Cookies": true, "Login Data": true, ".bash_history": true, ".zsh_history": true, ".python_history": true,
	".psql_history": true, ".mysql_history": true, ".node_repl_history": true, ".lesshst": true, "id_token": true,
	"fish_history": true, ".claude.json": true, ".databrickscfg": true, "firebase-tools.json": true,
	".terraformrc": true, "vault_pass": true, ".vault_pass": true, "kaggle.json": true, "connections.toml": true,
	"profiles.yml": false, ".sentryclirc": true, ".msmtprc": true, ".fetchmailrc": true, "api_key": true,
	".wakatime.cfg": true, ".rediscli_history": true, "deploy_key": true, "client_secret.json": true,
	".secrets": true, "env.production": true, ".dockercfg": true, "gcp-key.json": true, "sitemanager.xml": true,
	"credentials.tfrc.json": true, "auth.json": true, ".yarnrc.yml": true, "token.json": true, ".boto": true, ".s3cfg": true,
}

var secretExts = []string{".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".asc", ".gpg", ".tfvars"}

var secretDirs = []string{".aws", ".gnupg", ".kube", ".docker", ".azure", ".config/gcloud", ".password-store", ".config/gh",
	"var/run/secrets", "run/secrets", ".cache/huggingface", ".config/github-copilot", ".config/hub", ".supabase",
	".config/sops", ".local/share/keyrings", ".mozilla", ".config/google-chrome", ".config/chromium", "Library/Keychains",
	".terraform.d", ".cargo/credentials", ".m2/settings.xml", ".gradle/gradle.properties", ".config/op", ".vault-token",
	".wrangler", ".config/configstore", ".netlify", ".fly", ".config/doctl", ".config/hcloud", ".config/ngrok", ".config/stripe",
	".config/heroku", ".config/vercel", ".railway", ".config/gh-copilot", ".ansible", ".huggingface", ".kaggle",
	".snowflake", ".dbt", ".config/glab-cli", ".circleci/cli.yml", ".config/netlify", ".twilio-cli", ".mc",
	".config/filezilla", ".config/anthropic", ".config/openai", ".oci"}

// cleanPath is path.Clean that keeps a trailing "/." meaning and never
// returns "".
func cleanPath(p string) string {
	if p == "" {
		return "."
	}
	return path.Clean(p)
}

// baseName is the last element of a path, without trailing slashes.
func baseName(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// pathEnv is what classification needs to know.
type pathEnv struct {
	workspace string // absolute (possibly virtualWS)
	home      string // absolute (possibly virtualHome)
	cwd       string // absolute, or "" when unknown
	// alt is the other directory the shell may be in ("" when the cwd is
	// certain): after a cd that may have failed or not run (cd nope;
	// rm -rf ..), what follows runs in cwd or in alt, and a relative path
	// takes the stricter of its classes in the two (see [pathEnv.fork]).
	// It is never set when cwd is unknown.
	alt string

	// With FollowSymlinks: phys classes resolved targets (its workspace
	// and home are resolved too, see physical); links remembers
	// resolutions, fs what the disk said of each directory on the way.
	phys *pathEnv
	// team is the configuration's programs: the project files they load
	// are project code, as a shim's are (nil: none).
	team      *rules.TeamPrograms
	links     map[string]link
	fs        *realpath.Cache
	physReady bool // (of phys) its workspace and home are set
}

// cwdState is where the shell may be: cwd, and maybe alt.
type cwdState struct{ cwd, alt string }

func (e *pathEnv) state() cwdState { return cwdState{e.cwd, e.alt} }

func (e *pathEnv) setState(s cwdState) { e.cwd, e.alt = s.cwd, s.alt }

// setCwd makes dir the one directory the shell is in ("" for unknown).
func (e *pathEnv) setCwd(dir string) { e.cwd, e.alt = dir, "" }

// fork records that the shell may instead be where it was at before (a
// cd that may have failed or not run): the directories of the two states,
// when they are at most two, and nothing known past that.
func (e *pathEnv) fork(before cwdState) {
	now := e.state()
	if now == before {
		return
	}
	if now.cwd == "" || before.cwd == "" {
		e.setCwd("")
		return
	}
	dirs := []string{now.cwd}
	for _, d := range []string{now.alt, before.cwd, before.alt} {
		if d != "" && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	switch len(dirs) {
	case 1:
		e.setCwd(dirs[0])
	case 2:
		e.cwd, e.alt = dirs[0], dirs[1]
	default:
		e.setCwd("")
	}
}

// physical returns phys with its workspace and home resolved through the
// symlinks on disk, which is done the first time a path is found to pass
// through a link: a command none of whose paths does never needs them,
// and saves their lstats. (The workspace and home of a walk never change,
// and what the disk says is read once per Parse: the answer is the one an
// earlier resolution would have given.)
func (e *pathEnv) physical() *pathEnv {
	ph := e.phys
	if !ph.physReady {
		ph.workspace, ph.home, ph.physReady = physDir(e, e.workspace), physDir(e, e.home), true
	}
	return ph
}

// link is one resolution of a raw absolute path.
type link struct {
	resolved string
	linked   bool
	err      bool
}

// resolve resolves the raw (uncleaned) absolute path through the symlinks
// on disk, once per walk.
func (e *pathEnv) resolve(raw string) link {
	if l, ok := e.links[raw]; ok {
		return l
	}
	r, linked, err := e.fs.Graded(raw)
	l := link{resolved: r, linked: linked, err: err != nil}
	e.links[raw] = l
	return l
}

// raw is [pathEnv.absolute] without cleaning: `..` after a symlink means
// the link target's parent, which only resolution can tell. It is "" when
// p is relative to an unknown cwd, or relative to the virtual workspace
// or home (nothing on disk to resolve).
func (e *pathEnv) raw(p string) string {
	var r string
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		r = e.home + p[1:]
	case strings.HasPrefix(p, "/"):
		r = p
	case e.cwd == "":
		return ""
	default:
		r = e.cwd + "/" + p
	}
	if hasNUL(r) {
		return ""
	}
	return r
}

// at classes the static path p (no glob): its absolute form and class and,
// with FollowSymlinks, where it points and the class there; class is the
// stricter of the two. home reports that the path or its target lies in a
// home directory outside the workspace (see [pathEnv.inHome]).
func (e *pathEnv) at(p string) (abs, class, to, toClass string, home bool) {
	abs = e.absolute(p)
	if abs == "" {
		return "", unknownRelative(p), "", "", false
	}
	class, home = e.classAbs(abs), e.inHome(abs)
	if e.phys == nil {
		return abs, class, "", "", home
	}
	raw := e.raw(p)
	if raw == "" {
		return abs, class, "", "", home
	}
	l := e.resolve(raw)
	switch {
	case l.err:
		// A loop or an unreadable directory: nobody can tell where it
		// points.
		return abs, stricter(class, ClassDynamic), "?", ClassDynamic, home
	case !l.linked:
		return abs, class, "", "", home
	}
	ph := e.physical()
	tc := ph.classAbs(l.resolved)
	home = home || ph.inHome(l.resolved)
	if stricter(class, tc) == class {
		return abs, class, ph.display(l.resolved), tc, home
	}
	return abs, tc, ph.display(l.resolved), class, home
}

// inHome reports whether abs lies in a home directory (the user's, or any
// under /home, /Users, /root, /var/root, or a Windows drive's Users) and
// not in the workspace: where agent transcripts, app configuration and
// caches live, whose contents need consent to read.
func (e *pathEnv) inHome(abs string) bool {
	if abs == "" {
		return false
	}
	if under(abs, e.workspace) && e.workspace != "/" {
		// A workspace that is home itself (or holds it) does not make
		// home's hidden directories (~/.claude, ~/.config …) project files.
		if rest, ok := strings.CutPrefix(abs, e.home+"/"); ok && e.home != "/" && under(e.home, e.workspace) {
			return strings.HasPrefix(rest, ".")
		}
		return false
	}
	if e.home != "/" && under(abs, e.home) {
		return true
	}
	for _, top := range []string{"/home/", "/Users/"} {
		if rest, ok := strings.CutPrefix(abs, top); ok && rest != "" {
			return true
		}
	}
	if under(abs, "/root") || under(abs, "/var/root") || under(abs, "/private/var/root") {
		return true
	}
	// A Windows drive's Users, as Git Bash (/c/Users/…) and WSL
	// (/mnt/c/Users/…) spell it.
	d := strings.TrimPrefix(abs, "/mnt")
	if len(d) > 3 && isDriveRoot(d[:2]) && d[2] == '/' {
		first, rest, _ := strings.Cut(d[3:], "/")
		return strings.EqualFold(first, "users") && rest != ""
	}
	return false
}

// sameCwd reports whether cd to the raw absolute path lands where its
// cleaned form points: false when a symlink is followed by .. (cd -L and
// cd -P disagree) or the path cannot be resolved.
func (e *pathEnv) sameCwd(p string) bool {
	if e.phys == nil {
		return true
	}
	raw := e.raw(p)
	if raw == "" {
		return true
	}
	a, b := e.resolve(raw), e.resolve(cleanPath(raw))
	return !a.err && !b.err && a.resolved == b.resolved
}

// strictness orders the classes for [Operand.Class] when a path and its
// link target differ: the class whose rules are stricter comes first.
// Both classes reach the segment's read and write class sets either way.
var strictness = func() map[string]int {
	order := []string{ClassNet, ClassDevice, ClassCredentials, ClassRoot, ClassHome, ClassSystemTop,
		ClassGit, ClassSSH, ClassAgentConfig, ClassRC, ClassCI, ClassEnvrc, ClassSecret, ClassInstructions,
		ClassProjectCode, ClassDynamic, ClassUnknown, ClassSystem, ClassHomeSub, ClassOutside, ClassTmp,
		ClassWorkspace, ClassPublic, ClassNull}
	m := make(map[string]int, len(order))
	for i, c := range order {
		m[c] = len(order) - i
	}
	return m
}()

func stricter(a, b string) string {
	if strictness[b] > strictness[a] {
		return b
	}
	return a
}

// absolute resolves p against the environment: "~" and "~/…" against home,
// relative paths against cwd. It returns "" when p is relative and the cwd
// is unknown.
func (e *pathEnv) absolute(p string) string {
	if d, ok := winpath.Drive(p); ok {
		// C:/x or C:\x (Git Bash on Windows) is the absolute /c/x.
		return cleanPath(d)
	}
	if e.onDrives() && strings.Contains(p, `\`) {
		// On Windows a backslash separates too (..\..\x is ../../x).
		p = strings.ReplaceAll(p, `\`, "/")
	}
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		return cleanPath(e.home + p[1:])
	case strings.HasPrefix(p, "/"):
		return cleanPath(p)
	case e.cwd == "":
		return ""
	default:
		return cleanPath(e.cwd + "/" + p)
	}
}

// display renders an absolute path for humans: the virtual workspace and
// home become $WORKSPACE and ~.
func (e *pathEnv) display(abs string) string {
	switch {
	case abs == "":
		return ""
	case strings.HasPrefix(abs, virtualHome):
		return "~" + abs[len(virtualHome):]
	case e.home != virtualHome && (abs == e.home || inDir(abs, e.home)):
		return "~" + abs[len(e.home):]
	case strings.HasPrefix(abs, virtualWS):
		return "$WORKSPACE" + abs[len(virtualWS):]
	case strings.Contains(abs, "\x00"):
		// Above or beside the virtual workspace: count the levels up.
		parts := strings.Split(abs[1:], "/")
		k := 0
		for k < len(parts) && parts[k] == "\x00" {
			k++
		}
		return "$WORKSPACE/" + strings.Repeat("../", 9-k) + strings.Join(parts[k:], "/")
	}
	return abs
}

func under(p, dir string) bool {
	return p == dir || inDir(p, dir) || dir == "/"
}

// inDir is strings.HasPrefix(p, dir+"/") without building dir+"/".
func inDir(p, dir string) bool {
	return len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}

// classify returns the class of a static path (already resolved; may be a
// glob when glob is true, in which case only its directory part counts).
func (e *pathEnv) classify(text string, glob bool) (abs, class string) {
	abs, class, _, _, _ = e.classifyLink(text, glob)
	return abs, class
}

// classifyLink is classify that also returns where the path points and
// the class there (see [pathEnv.at]).
func (e *pathEnv) classifyLink(text string, glob bool) (abs, class, to, toClass string, home bool) {
	abs, class, to, toClass, home = e.classifyIn(text, glob)
	if e.alt != "" && cwdRelative(text) {
		// The shell may be in alt instead: the stricter class of the two.
		st := e.state()
		e.setCwd(st.alt)
		_, c, _, tc, h := e.classifyIn(text, glob)
		e.setState(st)
		class, home = stricter(class, c), home || h
		if tc != "" {
			toClass = stricter(toClass, tc)
		}
	}
	return abs, class, to, toClass, home
}

// cwdRelative reports a path that names a place from the cwd: neither
// absolute nor in home (~, ~/…).
func cwdRelative(p string) bool {
	return !strings.HasPrefix(p, "/") && p != "~" && !strings.HasPrefix(p, "~/")
}

// classifyIn is classifyLink in the cwd alone.
func (e *pathEnv) classifyIn(text string, glob bool) (abs, class, to, toClass string, home bool) {
	p := text
	if glob {
		// Only the directory part is known; a glob of a directory's entries
		// counts as the directory itself for critical classes.
		i := strings.IndexAny(p, "*?[")
		if i < 0 {
			return "", ClassDynamic, "", "", false // zsh's ^ and # globs: not classed
		}
		if k := strings.LastIndexByte(p[:i], '/'); strings.HasPrefix(p[k+1:], ".") && p[k+1:] != "./" && !strings.HasPrefix(p[k+1:], "../") {
			// .e* matches .env: a glob spelled to match hidden names can
			// reach secrets, so it is not classed, unless its directory is
			// critical (rm -rf ~/.[!.]* wipes every dotfile of home).
			if abs, c, to, tc, h := e.at(p[:k+1]); abs != "" {
				switch c {
				case ClassRoot, ClassHome, ClassSystemTop:
					return abs, c, to, tc, h
				}
			}
			return "", ClassDynamic, "", "", false
		}
		j := strings.LastIndexByte(p[:i], '/')
		if strings.ContainsAny(p[:j+1], "*?[") {
			return "", ClassDynamic, "", "", false
		}
		if strings.Contains(p[i:], "/") {
			// /*/ or ~/*/x: a glob in a middle component. Only the
			// directory before it is known; when that is critical, so is
			// the glob (it reaches every entry of it).
			dir := p[:j+1]
			if dir == "" {
				dir = "."
			}
			abs, c, to, tc, h := e.at(dir)
			if abs == "" {
				return "", ClassDynamic, "", "", false
			}
			switch c {
			case ClassRoot, ClassHome, ClassSystemTop:
				return abs, c, to, tc, h
			}
			// pkg/*/x.py: every match lies below pkg/ and ends in the
			// literal parts. Class it as pkg/_/x.py would be (the names
			// after the glob keep their classes: pkg/*/.git/config is .git),
			// unless a glob part can match hidden names (.e*/x).
			if strings.Contains(p[i:], "[") || hiddenGlob(p[j+1:]) {
				return "", ClassDynamic, "", "", false
			}
			_, c, to, tc, h = e.at(dir + globless(p[j+1:]))
			return abs, c, to, tc, h
		}
		last := p[j+1:]
		if j < 0 {
			p = "."
		} else {
			p = p[:j+1]
		}
		if p == "" {
			p = "/"
		}
		abs, class, to, toClass, home := e.at(p)
		if abs != "" && narrowGlob(last) {
			// *.pem, id_*, *.md: a glob spelled to match names that have
			// a class of their own (keys, CLAUDE.md, conftest.py) takes the
			// strictest of them. (A bare * is left to its directory's class:
			// grep x * would otherwise always ask.)
			pat := bashBracket(last)
			secret := ""
			for _, name := range specialNames() {
				if globNames(pat, name) {
					c := e.classAbs(strings.TrimSuffix(abs, "/") + "/" + name)
					class = stricter(class, c)
					if secretPlace[c] {
						secret = c
					}
				}
			}
			if secret != "" && secret != class && toClass == "" {
				// Stricter for writes (agent-config) is not stricter for
				// reads: keep the secret class too, where both are graded.
				toClass = secret
			}
		}
		return abs, class, to, toClass, home
	}
	return e.at(p)
}

// globNames reports whether the glob pat (path.Match syntax) may name
// the special file name. A pattern that is * and a plain suffix (*.json,
// *.txt) names a secret only when the suffix itself marks one (*.pem,
// *.env, *-key.json): credentials.json and keys.txt are among *.json and
// *.txt, but a glob of every JSON file is not aimed at them.
func globNames(pat, name string) bool {
	if !globMatch(pat, name) {
		return false
	}
	if rest, star := strings.CutPrefix(pat, "*"); star && !strings.ContainsAny(rest, "*?[") && isSecretName(name) {
		return isSecretName("x" + rest)
	}
	return true
}

// globMatch is path.Match(pat, name) without its error (a bad pattern
// matches nothing). A star and a literal (*.go, *.pem), the patterns most
// commands hold, are matched without path.Match's scan: the name ends in
// the literal and holds no slash before it, which is what path.Match
// answers for them.
func globMatch(pat, name string) bool {
	if lit, ok := strings.CutPrefix(pat, "*"); ok && !strings.ContainsAny(lit, `*?[\`) {
		return strings.HasSuffix(name, lit) && !strings.Contains(name[:len(name)-len(lit)], "/")
	}
	ok, _ := path.Match(pat, name)
	return ok
}

// narrowGlob reports a glob path part with a literal character (or a
// bracket expression) besides dots: *.pem, id_*, [a-c]*.md, not * or *.*.
func narrowGlob(part string) bool {
	return strings.ContainsAny(part, "*?[") && strings.Trim(part, "*?.") != ""
}

// specialNames are names (not hidden) that have a class of their own
// wherever they are: secrets, instructions, agent configuration, CI files
// and the files programs load, with the spellings their patterns stand for
// (x.pem, prod.env, CLAUDE.md …). A glob matching one may name it.
var specialNames = sync.OnceValue(func() []string {
	var out []string
	add := func(n string) {
		if n != "" && n[0] != '.' {
			out = append(out, n)
		}
	}
	for _, m := range []map[string]bool{secretNames, instructionFiles, agentFiles, ciFiles, rcFiles} {
		for n, on := range m {
			if on {
				add(n)
				add(strings.ToUpper(strings.TrimSuffix(n, path.Ext(n))) + path.Ext(n)) // CLAUDE.md
			}
		}
	}
	for _, ext := range secretExts {
		add("x" + ext)
	}
	for _, n := range []string{"id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "id_rsa_work", "prod.env", "x-key.json",
		"x_key.json", "firebase-adminsdk-x.json", "deploy_key_x", "ssh_host_rsa_key", "x.keytab"} {
		add(n)
	}
	for _, p := range programs.All() {
		for _, f := range p.Loads {
			add(baseName(f))
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
})

// hiddenGlob reports a path part with glob characters that starts with a
// dot (it can match hidden names such as .env).
func hiddenGlob(rest string) bool {
	for _, part := range strings.Split(rest, "/") {
		if strings.HasPrefix(part, ".") && strings.ContainsAny(part, "*?[") {
			return true
		}
	}
	return false
}

// globless replaces every path part holding a * or ? with "_": what is
// known of the paths such a glob matches.
func globless(rest string) string {
	parts := strings.Split(rest, "/")
	for k, part := range parts {
		if strings.ContainsAny(part, "*?") {
			parts[k] = "_"
		}
	}
	return strings.Join(parts, "/")
}

// startupPlace reports whether an rc-named file sits where shells and tools
// read it at start-up: directly in home, in home's .config, or in /etc. A
// .bashrc copied into the workspace starts nothing.
func (e *pathEnv) startupPlace(abs string) bool {
	d := dirOf(abs)
	return d == e.home || strings.HasPrefix(abs, e.home+"/.config/") || strings.HasPrefix(abs, e.home+"/.bashrc.d/") ||
		strings.HasPrefix(abs, e.home+"/Library/") || strings.HasPrefix(abs, "/Library/") ||
		strings.HasPrefix(abs, "/etc/") || strings.HasPrefix(abs, "/private/etc/") || strings.HasPrefix(abs, "/var/spool/") ||
		strings.Contains(abs, "\x00home")
}

// unknownRelative classes a relative path when the cwd is unknown: names
// that are protected anywhere keep their class.
func unknownRelative(p string) string {
	if c := nameClass(p); c != "" {
		return c
	}
	return ClassUnknown
}

func (e *pathEnv) classAbs(abs string) string {
	switch {
	case strings.HasPrefix(abs, "/dev/tcp/") || strings.HasPrefix(abs, "/dev/udp/"):
		return ClassNet
	case strings.HasPrefix(abs, "/proc/") && (strings.HasSuffix(abs, "/environ") || strings.HasSuffix(abs, "/mem")),
		isProcessDir(abs):
		return ClassSecret // a process's environment, memory, open files
	case nullPaths[abs] || strings.HasPrefix(abs, "/dev/fd/") || strings.HasPrefix(abs, "/proc/self/fd/"):
		return ClassNull
	case isDevice(abs):
		return ClassDevice
	case credentialFiles[abs] || strings.HasPrefix(abs, "/etc/sudoers") || strings.HasPrefix(abs, "/private/etc/sudoers"):
		return ClassCredentials
	case abs == "/" || (e.onDrives() && isDriveRoot(abs)):
		return ClassRoot
	case abs == e.home:
		return ClassHome
	case systemTop[abs] || (e.onDrives() && windowsSystemDir(abs) == abs):
		return ClassSystemTop
	}
	if c := nameClass(abs); c != "" && (c != ClassRC || e.startupPlace(abs)) {
		return c
	}
	if e.team.IsProjectCode(abs) {
		return ClassProjectCode
	}
	switch {
	case under(abs, e.workspace):
		return ClassWorkspace
	case under(abs, "/tmp") || under(abs, "/var/tmp") || under(abs, "/private/tmp") || under(abs, "/dev/shm"):
		return ClassTmp
	case under(abs, e.home):
		return ClassHomeSub
	case strings.HasPrefix(abs, "/\x00"):
		return ClassOutside
	}
	first := abs
	if i := strings.IndexByte(abs[1:], '/'); i >= 0 {
		first = abs[:i+1]
	}
	if systemTop[first] && first != "/home" && first != "/Users" && first != "/mnt" && first != "/media" && first != "/Volumes" {
		return ClassSystem
	}
	if e.onDrives() && windowsSystemDir(abs) != "" {
		return ClassSystem
	}
	return ClassOutside
}

// onDrives reports whether the workspace or home is on a Windows drive in
// the slash form (/c/Users/…): then /c is a drive, not a directory.
func (e *pathEnv) onDrives() bool {
	on := func(p string) bool { return len(p) >= 3 && isDriveRoot(p[:2]) && p[2] == '/' }
	return on(e.workspace) || on(e.home)
}

// isDriveRoot reports a Windows drive's root in the slash form (/c), which
// Git Bash also names so: on Windows it is what / is elsewhere.
func isDriveRoot(abs string) bool {
	return len(abs) == 2 && abs[0] == '/' && 'a' <= abs[1]|0x20 && abs[1]|0x20 <= 'z'
}

// windowsSystemDirs are the system directories at a drive's root.
var windowsSystemDirs = []string{"windows", "program files", "program files (x86)", "programdata"}

// windowsSystemDir returns the Windows system directory (/c/Windows …)
// abs is or lies in, in abs's spelling, or "".
func windowsSystemDir(abs string) string {
	if len(abs) < 4 || !isDriveRoot(abs[:2]) || abs[2] != '/' {
		return ""
	}
	first, _, _ := strings.Cut(abs[3:], "/")
	for _, d := range windowsSystemDirs {
		if strings.EqualFold(first, d) {
			return abs[:3+len(first)]
		}
	}
	return ""
}

// isProcessDir reports /proc/self, /proc/thread-self and /proc/PID and what
// is below them (a recursive read reaches environ and the open files).
func isProcessDir(abs string) bool {
	rest, ok := strings.CutPrefix(abs, "/proc/")
	if !ok {
		return false
	}
	first, _, _ := strings.Cut(rest, "/")
	if first == "self" || first == "thread-self" {
		return true
	}
	return first != "" && strings.Trim(first, "0123456789") == ""
}

func isDevice(abs string) bool {
	switch {
	case abs == "/proc/sysrq-trigger", abs == "/proc/kcore", strings.HasPrefix(abs, "/sys/firmware/efi/efivars"),
		strings.HasPrefix(abs, "/sys/block/"), strings.HasPrefix(abs, "/sys/class/block/"):
		return true // writing these reboots, bricks or corrupts the machine
	case !strings.HasPrefix(abs, "/dev/"):
		return false
	}
	for _, p := range devicePrefixes {
		if strings.HasPrefix(abs, p) {
			return true
		}
	}
	return false
}

// nameClass returns the class a path has by its own names wherever it is
// (.git, .ssh, rc files, agent config, CI workflows, secrets), or "".
func nameClass(p string) string {
	trimmed := strings.Trim(p, "/")
	rest, prev, base := trimmed, "", trimmed
	for rest != "" {
		part := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			part, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		// Case-insensitive file systems (macOS, Windows) treat .GIT as .git.
		lp := strings.ToLower(part)
		switch {
		case lp == ".git":
			return ClassGit
		case lp == ".ssh":
			return ClassSSH
		case agentDirs[lp]:
			if isSecretName(baseName(trimmed)) {
				return ClassSecret // .claude/.credentials.json, .gemini/oauth_creds.json
			}
			return ClassAgentConfig
		case (lp == "rivumi" || lp == "opencode") && prev == ".config":
			return ClassAgentConfig
		case lp == "fish" && prev == ".config", lp == ".bashrc.d", lp == "profile.d" && prev == "etc",
			lp == "zsh" && prev == "etc", lp == "bash_completion.d" && prev == "etc",
			lp == "autostart" && prev == ".config", lp == "systemd" && (prev == ".config" || prev == "etc"),
			strings.HasPrefix(lp, "cron") && prev == "etc", lp == "cron" && prev == "spool", lp == "launchagents",
			lp == "launchdaemons":
			// Start-up files and persistence places: what is written there runs later.
			return ClassRC
		}
		prev, base = lp, part
	}
	lower := strings.ToLower(trimmed)
	lbase := strings.ToLower(base)
	if secretDirSet.within(lower) {
		return ClassSecret
	}
	if agentDirSet.within(lower) {
		return ClassAgentConfig
	}
	if ciDirSet.within(lower) {
		return ClassCI
	}
	switch {
	case lbase == ".envrc":
		return ClassEnvrc
	case lbase == ".github":
		return ClassCI // the directory itself: copying one in brings its workflows
	case instructionFiles[lbase]:
		return ClassInstructions
	case agentFiles[lbase]:
		return ClassAgentConfig
	case rcFiles[lbase] && (lbase == lower || strings.HasPrefix(lbase, ".") || lbase == "config.fish" ||
		strings.HasPrefix(trimmed, "etc/") || strings.Contains(p, "\x00home")):
		return ClassRC
	case ciFiles[base]:
		return ClassCI
	case isSecretName(base):
		return ClassSecret
	case rules.IsProjectCode(trimmed):
		return ClassProjectCode
	}
	return ""
}

var ciDirSet, secretDirSet = newDirSet(ciDirs), newDirSet(secretDirs)

// agentDirSet are agent configuration directories named by more than one
// component: Copilot CLI's repository settings and hooks.
var agentDirSet = newDirSet([]string{".github/copilot", ".github/hooks"})

// dirSet is a set of directory names, each one or more slash-joined path
// components (".aws", ".config/gcloud"), matched case-insensitively as
// whole consecutive components anywhere in a path.
type dirSet struct {
	names    map[string]bool // lower-cased
	maxSlash int             // the most slashes in one name
	first    [256]bool       // the first bytes names start with
}

func newDirSet(dirs []string) *dirSet {
	d := &dirSet{names: make(map[string]bool, len(dirs))}
	for _, n := range dirs {
		n = strings.ToLower(n)
		if n == "" || n[0] == '/' || n[len(n)-1] == '/' || strings.Contains(n, "//") {
			panic("parser: bad directory pattern " + n)
		}
		d.names[n] = true
		d.first[n[0]] = true
		d.maxSlash = max(d.maxSlash, strings.Count(n, "/"))
	}
	return d
}

// within reports whether lower (a lower-cased path without leading or
// trailing slash) has a run of whole components that is one of the names:
// "/"+lower+"/" contains "/"+name+"/". It does not allocate.
func (d *dirSet) within(lower string) bool {
	for i := 0; i < len(lower); {
		if d.first[lower[i]] {
			// Try the component run starting at i ending at each of the next
			// maxSlash+1 component ends.
			e := i
			for k := 0; k <= d.maxSlash && e < len(lower); k++ {
				j := strings.IndexByte(lower[e+1:], '/')
				if j < 0 {
					e = len(lower)
				} else {
					e += 1 + j
				}
				if d.names[lower[i:e]] {
					return true
				}
			}
		}
		j := strings.IndexByte(lower[i:], '/')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return false
}

func isSecretName(base string) bool {
	if secretNames[base] {
		return true
	}
	if strings.HasPrefix(base, "ssh_host_") && strings.HasSuffix(base, "_key") || strings.HasSuffix(base, ".keytab") {
		return true // host keys, Kerberos keytabs
	}
	if strings.Contains(base, "adminsdk") && strings.HasSuffix(base, ".json") || strings.HasSuffix(base, "-key.json") ||
		strings.HasSuffix(base, "_key.json") || strings.HasPrefix(base, "deploy_key") {
		return true // firebase-adminsdk-*.json, gcp-key.json, deploy keys
	}
	if strings.HasSuffix(base, ".env") && base != ".env" {
		return true // prod.env, local.env
	}
	if strings.HasPrefix(base, ".env.") {
		rest := base[len(".env."):]
		return rest != "example" && rest != "sample" && rest != "template" && rest != "dist"
	}
	if strings.HasPrefix(base, "id_") && (strings.HasPrefix(base, "id_rsa") || strings.HasPrefix(base, "id_ed25519") || strings.HasPrefix(base, "id_ecdsa") || strings.HasPrefix(base, "id_dsa")) && !strings.HasSuffix(base, ".pub") {
		return true
	}
	for _, ext := range secretExts {
		if strings.HasSuffix(base, ext) {
			return true
		}
	}
	return false
}
