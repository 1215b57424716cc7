#!/usr/bin/env python3
"""Generates policies/tables/*.json from the compact lists below.

The tables are data for the Rego packs: which programs are read-only and
with which options (by the canonical names the parser reports), which
programs touch the network, install packages or run workspace code.
Edit this file, run it, and commit both.
"""
import json, os

ANY = "*"
# program: (allowed flags, or ANY; dynamic arguments are harmless)
readonly = {
    "ls": (ANY, True), "cat": (ANY, False), "head": (ANY, False), "tail": (ANY, False), "wc": (ANY, False),
    "echo": (ANY, True), "printf": ("", True), "pwd": ("L P", True), "whoami": ("", True), "id": (ANY, True),
    "uname": (ANY, True), "which": (ANY, True), "type": (ANY, True), "stat": (ANY, False),
    "file": (ANY, False), "du": (ANY, False), "df": (ANY, True), "diff": ("brief report-identical-files c context u unified e n y side-by-side width t expand-tabs initial-tab r recursive new-file exclude exclude-from ignore-case ignore-all-space ignore-space-change ignore-blank-lines text color from-file to-file normal show-c-function q help version", False),
    "cmp": (ANY, False), "cut": (ANY, False), "tr": (ANY, False), "nl": (ANY, False), "tac": (ANY, False),
    "rev": (ANY, False), "column": (ANY, False), "jq": ("raw-output join-output raw-output0 compact-output slurp null-input exit-status ascii-output sort-keys color-output monochrome-output tab indent unbuffered arg argjson slurpfile rawfile argfile args jsonargs raw-input seq stream stream-errors binary help version build-configuration", False),
    "basename": (ANY, True), "dirname": (ANY, True), "realpath": (ANY, False), "readlink": (ANY, False),
    # ":" with literal words only: ${V:=x} assigns and $(…) runs (issue 14);
    # GNU bc has no shell escape (dc's "!" is one: dc is not here), and reads
    # only standard input when given no file.
    ":": (ANY, False), "bc": ("l mathlib q quiet s standard w warn", False),
    "true": (ANY, True), "false": (ANY, True), "test": (ANY, True), "[": (ANY, True), "[[": (ANY, True),
    "((": (ANY, True), "let": (ANY, True), "printenv": ("0 null", True), "grep": (ANY, False), "egrep": (ANY, False),
    "fgrep": (ANY, False), "sleep": (ANY, True), "seq": (ANY, True), "expr": (ANY, True), "cd": ("L P e @", True),
    "pushd": ("n", True), "read": (ANY, True), "getopts": (ANY, True), "shift": (ANY, True),
    "local": (ANY, False), "export": ("n p", False), "declare": ("a A i l u p r x", False), "typeset": ("a A i l u p r x", False), "popd": ("n", True), "dirs": (ANY, True), "hostname": ("s short f fqdn i ip-address A all-fqdns d domain", False),
    "date": ("u utc universal R rfc-email I iso-8601 rfc-3339 d date r reference", False),
    "sort": ("output ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort reverse sort version-sort check C debug key merge stable buffer-size field-separator parallel unique zero-terminated help version", False),
    "uniq": (ANY, False), "tree": ("o a d l f i q N Q p u g s h D F r t v U x L P I gitignore noreport charset dirsfirst filesfirst sort du prune J X C n", False),
    "rg": ("regexp file after-context before-context context count count-matches color colors column no-column max-depth encoding fixed-strings files files-with-matches files-without-match glob iglob help hidden with-filename no-filename ignore-case json follow max-count max-columns max-filesize line-number no-line-number no-heading heading only-matching pretty quiet replace case-sensitive smart-case sort sortr type type-not type-list unrestricted invert-match version word-regexp line-regexp null multiline multiline-dotall pcre2 no-ignore no-ignore-vcs no-ignore-dot no-ignore-parent no-ignore-global trim vimgrep stats null-data no-messages no-config byte-offset text binary block-buffered line-buffered crlf one-file-system no-follow glob-case-insensitive field-match-separator field-context-separator path-separator engine sort-files threads", False),
    # -exec/-execdir: what they run is a segment of its own, graded as such.
    "find": ("exec execdir name iname path ipath wholename iwholename regex iregex type xtype size mtime mmin atime amin ctime cmin newer anewer cnewer user group uid gid perm maxdepth mindepth links inum samefile lname ilname fstype print print0 printf ls prune quit true false not o or a and empty executable readable writable nogroup nouser depth follow mount xdev noleaf daystart regextype L H P O0 O1 O2 O3 D readable", False),
    "hash": ("t l", True), "command": ("v V p", True), "set": (ANY, False), "shopt": ("p q", False),
    "history": ("", True), "whereis": (ANY, False), "locale": (ANY, True),
    "nproc": (ANY, True), "free": (ANY, True), "uptime": (ANY, True), "ps": (ANY, True), "groups": (ANY, True),
    "tty": (ANY, True), "arch": (ANY, True), "lsb_release": (ANY, True), "sw_vers": (ANY, True),
    "md5sum": (ANY, False), "sha1sum": (ANY, False), "sha256sum": (ANY, False), "sha512sum": (ANY, False),
    "shasum": (ANY, False), "cksum": (ANY, False), "b2sum": (ANY, False), "od": (ANY, False), "hexdump": (ANY, False),
    "xxd": ("a autoskip b bits c cols C capitalize E EBCDIC e g groupsize h help i include l len n name o offset p ps postscript plain r revert R d s seek u v version", False),
    "strings": (ANY, False), "fold": (ANY, False), "fmt": (ANY, False), "paste": (ANY, False), "join": (ANY, False),
    "comm": (ANY, False), "expand": (ANY, False), "unexpand": (ANY, False), "numfmt": (ANY, True), "factor": (ANY, True),
    "tsort": (ANY, False), "look": (ANY, False), "getconf": (ANY, True), "lscpu": (ANY, True), "lsblk": (ANY, True),
    # lsof lists open files (names and metadata, never contents); base64 -o
    # (BSD) writes inside the workspace only, as every allowed write.
    # (less and more are not here: with LESSOPEN set they hand file names
    # to a preprocessor, CVE-2024-32487.)
    "lsof": (ANY, True), "base64": ("d D decode i input o output b break w wrap ignore-garbage", False),
    "git-ls": ("", False), "gofmt": ("l d e s", False), "yq": ("r e exit-status o output-format p input-format P prettyPrint I indent C colors M no-colors N no-doc j tojson null-input n unwrapScalar 0 nul-output", False),
}
# Programs also covered when every write stays inside the workspace.
writers = {
    "mkdir": "m mode p parents v verbose",
    "touch": "a c no-create d date m r reference t time",
    "tee": "a append i ignore-interrupts p output-error",
    # no -s/-l: a symlink made in the workspace lets a later write land anywhere
    "cp": "a archive f force i interactive L dereference n no-clobber P no-dereference p preserve no-preserve parents R recursive T no-target-directory t target-directory u update v verbose x one-file-system",
    "mv": "f force i interactive n no-clobber T no-target-directory t target-directory u update v verbose",
}
git_readonly = {
    "status": ANY, "log": "S G pickaxe-regex pickaxe-all follow no-decorate decorate source L max-count skip since until author committer grep all-match invert-grep regexp-ignore-case merges no-merges first-parent all branches tags remotes graph oneline format abbrev-commit no-abbrev-commit patch no-patch stat shortstat name-only name-status numstat reverse date color no-color relative-date walk-reflogs no-ext-diff NUM",
    "show": "format abbrev-commit oneline stat name-only name-status patch no-patch color no-color quiet no-ext-diff NUM",
    "diff": "cached staged stat numstat shortstat name-only name-status color no-color ignore-all-space patch unified check quiet exit-code R minimal patience histogram diff-algorithm relative text word-diff no-ext-diff NUM",
    "branch": "list all remotes verbose show-current contains no-contains merged no-merged points-at sort format color no-color column no-column ignore-case abbrev no-abbrev r a v",
    "rev-parse": ANY, "ls-files": ANY, "blame": ANY, "help": "a all g guides c config i info m man", "grep": "cached no-index untracked ignore-case I max-depth recursive word-regexp invert-match h H full-name extended-regexp basic-regexp perl-regexp fixed-strings line-number column files-with-matches name-only files-without-match null only-matching count color no-color break heading show-function after-context before-context context function-context max-count threads f e and or not all-match quiet",
    "remote": "verbose v", "tag": "list l sort contains no-contains merged no-merged points-at column format color ignore-case n",
    "describe": ANY, "shortlog": "numbered summary email format c committer w group", "cat-file": "t s e p batch batch-check batch-all-objects follow-symlinks unordered buffer",
    "ls-tree": ANY, "for-each-ref": "count sort format color points-at merged no-merged contains no-contains ignore-case",
    "reflog": "", "stash": "p patch stat name-only include-untracked u", "worktree": "porcelain v verbose z", "config": "get get-all get-regexp list l show-origin show-scope name-only null z global local system type default includes no-includes",
    "whatchanged": "follow no-decorate decorate source max-count skip since until author committer grep all-match invert-grep regexp-ignore-case merges no-merges first-parent all graph oneline format abbrev-commit no-abbrev-commit patch no-patch stat shortstat name-only name-status numstat reverse date color no-color relative-date NUM", "show-ref": ANY, "show-branch": ANY, "merge-base": ANY, "name-rev": ANY,
    "count-objects": ANY, "fsck": "", "var": ANY, "check-ignore": ANY, "check-attr": ANY, "version": ANY,
    "rev-list": "all max-count count reverse first-parent merges no-merges since until author grep objects NUM",
}
# git subcommands whose operands must be a listing word only.
git_list_words = {"remote": ["-v", "get-url"], "reflog": ["show"], "stash": ["list", "show"], "worktree": ["list"]}
# git subcommands whose bare form changes something (git stash = push): they
# need one of their listing words.
git_needs_word = ["stash", "worktree"]
# git subcommands that only list when given a listing option (git branch x creates x).
# (git branch -v NAME still creates NAME: -v and -a are not listing flags.)
git_list_flags = {"branch": ["list", "l", "contains", "no-contains", "merged", "no-merged", "points-at", "show-current"],
                  "tag": ["list", "l", "n", "contains", "no-contains", "merged", "no-merged", "points-at"]}

# network and project_loaders come from the program registry (programs/programs.yaml →
# policies/tables/programs.json).
package_managers = {
    "npm": "install i add ci update upgrade uninstall remove rm un link publish exec x dlx audit rebuild".split(),
    "pnpm": "install i add update up upgrade remove rm un link publish exec dlx rebuild".split(),
    "yarn": "install add upgrade up remove link publish dlx global".split(),
    "bun": "install i add update remove rm link publish x".split(),
    "pip": "install uninstall download wheel".split(), "pip3": "install uninstall download wheel".split(),
    "uv": "add remove sync pip tool run venv".split(), "poetry": "add remove install update".split(),
    "pipx": "install run upgrade uninstall inject".split(), "conda": "install create remove update env".split(),
    "gem": "install uninstall update".split(), "bundle": "install update add".split(),
    "composer": "install require update remove global".split(), "cargo": "install uninstall add remove update".split(),
    "go": "install get mod".split(), "apt": "install remove purge upgrade update full-upgrade autoremove dist-upgrade".split(),
    "apt-get": "install remove purge upgrade update dist-upgrade autoremove build-dep source".split(),
    "dnf": "install remove upgrade update erase".split(), "yum": "install remove upgrade update erase".split(),
    "brew": "install uninstall upgrade update tap reinstall link".split(), "snap": "install remove refresh".split(),
    "flatpak": "install uninstall update".split(), "nix": "install profile run shell develop build".split(),
    "port": "install uninstall upgrade".split(), "dotnet": "add tool restore".split(),
    "rustup": "install update toolchain component target default".split(), "deno": "install add".split(),
    "mix": "deps.get archive.install".split(), "helm": "install upgrade repo".split(),
    "docker": "pull run build push exec compose".split(), "podman": "pull run build push exec".split(),
}
# True: every use runs workspace code; a list: these subcommands do.
workspace_runners = {
    "make": True, "gmake": True, "cmake": True, "ninja": True, "meson": True, "bazel": True, "buck": True,
    "pytest": True, "tox": True, "nox": True, "rake": True, "gradle": True, "gradlew": True, "mvn": True,
    "ant": True, "sbt": True, "jest": True, "vitest": True, "mocha": True, "phpunit": True, "rspec": True,
    "just": True, "task": True, "invoke": True, "fab": True, "ctest": True, "tsc": True, "webpack": True,
    "vite": True, "esbuild": True, "eslint": True, "prettier": True, "pre-commit": True, "husky": True,
    "lefthook": True, "cargo": ["build", "test", "run", "bench", "check", "clippy", "doc", "fmt", "b", "t", "r", "c", "x", "nextest", "expand"],
    "go": ["test", "run", "generate", "build", "vet", "tool"],
    "npm": ["run", "run-script", "test", "t", "start", "stop", "restart", "pack", "rebuild", "prepare", "exec", "x"],
    "pnpm": ["run", "test", "t", "start", "exec", "dlx"], "yarn": ["run", "test", "start", "exec", "node", "dlx"],
    "bun": ["run", "test", "x"], "deno": ["run", "test", "task", "bench", "eval", "repl"],
    "dotnet": ["run", "test", "build"], "swift": ["run", "test", "build"], "zig": ["build", "run", "test"],
    "mix": ["test", "run", "compile"], "poetry": ["run"], "uv": ["run"], "pipenv": ["run"], "hatch": ["run", "test"],
    "docker": ["build", "compose", "run", "exec"], "terraform": ["apply", "plan", "init", "destroy", "import"],
    "tofu": ["apply", "plan", "init", "destroy"], "pulumi": ["up", "destroy", "preview"],
    "flutter": ["run", "test", "build"], "dart": ["run", "test"], "stack": ["run", "test", "build", "exec"],
    "cabal": ["run", "test", "build", "exec"], "lein": ["run", "test"], "rails": ["server", "s", "console", "c", "runner", "db:migrate"],
    "bundle": ["exec"], "php": ["artisan"], "python": [], "ansible-playbook": True, "vagrant": True,
}
ops_tools = "kubectl helm terraform tofu pulumi aws gcloud az doctl heroku fly flyctl vercel netlify firebase vault nats circleci kafka-topics rabbitmqctl rclone gsutil s3cmd docker podman eksctl kind minikube k3d argocd istioctl consul nomad etcdctl redis-cli psql mysql mongo mongosh gh glab supabase wrangler railway stripe".split()

# Exact argv forms that only print a version or a setting.
version_forms = {
    # Not yarn or pnpm: they run the version the project names (.yarnrc yarn-path runs a
    # repository file; packageManager through corepack).
    "node": [["-v"]], "npm": [["-v"]], "bun": [["-v"]],
    "go": [["version"], ["env"]], "python": [["-V"]],
    "python3": [["-V"]], "ruby": [["-v"]], "perl": [["-v"]], "java": [["-version"]], "javac": [["-version"]],
    "deno": [["-V"]], "php": [["-v"]], "gcc": [["-v"], ["-dumpversion"]], "clang": [["-v"]], "make": [["-v"]],
    "terraform": [["version"], ["-v"]], "kubectl": [["version", "--client"]], "docker": [["version", "--format", "{{.Client.Version}}"]],
    "git": [["version"]], "gh": [["version"]], "uv": [["version"]], "pip": [["-V"]], "pip3": [["-V"]],
}

# Sets the hot path looks up by key (a data lookup costs less than building
# a set literal on every verdict).
sets = {
    "unknowable_tags": ["dynamic-program", "changed-shell", "dynamic-code", "fetched-code", "stdin-code",
        "script-file", "interactive", "runs-downloaded", "fork-bomb", "code-critical", "code-revshell",
        "code-spawns", "arith-dynamic", "changes-resolution", "code-unsafe", "appended-args", "name-normalized"],
    # Reads that need consent: secrets, devices, paths nobody can know beforehand (cat "$f"),
    # and globs of / or of home (cat ~/.s?h/id_rsa, cat /etc/*).
    "unreadable_classes": ["secret", "ssh", "credentials", "device", "dynamic", "unknown", "root", "home", "system-top"],
}

def flagset(spec):
    if spec == ANY:
        return {"any": True}
    return {"flags": {f: True for f in spec.split()}}

tables = {"readonly": {}, "writers": {}, "git_readonly": {}, "git_list_words": git_list_words,
          "git_needs_word": {s: True for s in git_needs_word}, "git_list_flags": git_list_flags,
          "version_forms": version_forms,
          "sets": {k: {x: True for x in v} for k, v in sets.items()},
          "package_managers": package_managers,
          "workspace_runners": workspace_runners, "ops_tools": {p: True for p in ops_tools}}
# Programs that change something when given operands (hostname NAME sets it).
no_operands = {"hostname", "history", "bc"}
for prog, (spec, dyn) in readonly.items():
    e = flagset(spec); e["dynamic_ok"] = dyn
    if prog in no_operands:
        e["no_operands"] = True
    tables["readonly"][prog] = e
for prog, spec in writers.items():
    tables["writers"][prog] = flagset(spec)
for sub, spec in git_readonly.items():
    tables["git_readonly"][sub] = flagset(spec)

out = os.path.join(os.path.dirname(__file__), "..", "policies", "tables", "tables.json")
with open(out, "w") as f:
    json.dump({"rivumi": {"tables": tables}}, f, indent=1, sort_keys=True)
    f.write("\n")
print("wrote", out)
