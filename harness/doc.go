// Package harness runs the commands an agent asks for, after grading
// them: grade the argv with a [Grader] (allow runs; deny refuses; ask goes
// to an [Approver]), execute it, and append the grading and the run to an
// audit log.
//
// The harness is the second wall of the threat model: the command comes
// from a model that may be prompt-injected, in a repository that may be
// hostile, so a command the policy let through still runs with as little
// as it needs.
//
// # Contracts
//
//   - argv only: the program is exec'd directly with its arguments; there
//     is no shell anywhere. argv[0] is resolved against the child's PATH
//     (relative PATH entries dropped) or, with a slash, relative to the
//     request's Dir. The resolved path and the file's identity (device,
//     inode, size, mtime; symlinks followed) are recorded before grading
//     and checked again right before the process starts; a difference
//     (a new program earlier in PATH, a swapped symlink, a rewritten file)
//     refuses the run ([ProgramChangedError], rule harness.program-changed).
//     Under Landlock the helper checks once more inside the sandbox.
//   - Environment from an allowlist ([DefaultEnvAllow], or
//     [Config.EnvAllow]); a name containing API, AUTH, CREDENTIAL, GITHUB,
//     PASSWORD, PASSWD, SECRET, TOKEN, PRIVATE or COOKIE
//     (case-insensitive), and variables that carry code (LD_*,
//     BASH_FUNC_*, NODE_OPTIONS, GIT_*, …), never pass, whatever the
//     configuration ([SecretEnvName]). Git is hardened
//     (GIT_TERMINAL_PROMPT=0, GIT_ASKPASS=/bin/false, GIT_CONFIG_GLOBAL=/dev/null,
//     GIT_CONFIG_NOSYSTEM=1). TMPDIR, HOME (unless [Config.KeepHome]),
//     XDG_CACHE_HOME, XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME,
//     PIP_CACHE_DIR, npm_config_cache and GOCACHE point into a fresh 0700
//     run directory, removed afterwards unless [Config.KeepRunDir]; the
//     caches into [Config.CacheDir] instead when it is set (kept per
//     project, so a later run builds warm).
//     GOMODCACHE is not moved (set KeepHome or allow GOPATH/GOMODCACHE to
//     share a module cache).
//   - A new session, hence a new process group (pgid == pid) with no
//     controlling terminal (on Windows: a job object that ends every
//     process of the command when the run ends, and a new console process
//     group; only .exe and .com programs run there, never .bat or .cmd,
//     which Windows hands to cmd.exe). On timeout or cancellation: SIGTERM to the
//     group, [Config.KillGrace] (default 2s), SIGKILL to the group. When
//     the command exits, processes left in its group get the same
//     treatment ([Result.Stragglers]). Processes that escaped the group
//     (setsid, setpgid) are found, at exit and after a timeout, by the
//     run's marker in their environment ([RunMarkerEnv], the run id) and
//     stopped the same way; [Result.Escaped] and the audit "run" entry
//     list them and whether they died. Under bwrap the command's PID
//     namespace dies with it, so none are left; under Landlock or no
//     sandbox, a process that also replaced its environment is not found
//     (nor is any on systems without /proc). Output pipes still held by
//     such a process are closed after the grace period, so Run always
//     returns ([Result.OutputIncomplete]).
//   - Output: stdout and stderr are drained completely; a bounded head and
//     tail of each is kept ([Output]) with total and dropped byte counts,
//     so memory stays bounded whatever the command prints.
//   - The timeout belongs to the harness: zero means
//     [Config.DefaultTimeout]; above [Config.MaxTimeout] is denied (rule
//     harness.timeout-above-max), never obeyed or clamped.
//   - Approval: ask goes to the [Approver] with a deadline
//     ([Config.ApprovalTimeout]); a timeout, a cancelled context, an error
//     or any answer but once/always is a deny. [Interactive] prompts on a
//     terminal, [Headless] denies (or runs once if so configured) and
//     [ApproverFunc] lets an embedding program decide.
//   - Grants: "always" records, per argv prefix of the grantable asks
//     ([verdict.Reason.Prefix] with Grantable), a grant of those rule ids
//     ([grant.For]); the engine cancels only those asks on segments the
//     grant matches. [grant.Check] refuses grants of programs that can run
//     anything (the program registry's runs_anything entries, in any case
//     or version suffix: shells, interpreters, env, sudo, xargs, find,
//     nohup, timeout, ssh, npx, …; git with no subcommand, npm exec, …),
//     and the engine never applies such a grant however it was stored. With a
//     [grant.Store] grants persist per project
//     ([grant.DefaultPath]); without, they last as long as the Harness.
//   - Sandbox ([Config.Sandbox]): bwrap or Landlock on Linux, Seatbelt
//     (sandbox-exec with a profile generated per run) on macOS, none on
//     Windows; what each allows is one table, [Contract] (rendered into
//     docs/platforms.md). A backend is used only after a probe run inside
//     it finds the contract held (no capability, remount and new
//     namespaces refused, no unix or netlink socket, the homes and /tmp
//     hidden). A named backend that is unavailable is a
//     [*SandboxUnavailableError] from [New], never an unsandboxed run, and
//     so is auto when no backend is left: none must be named. bwrap comes
//     from root-owned system paths only ([Result.SandboxDetail] names its
//     path, version and digest). Programs using bwrap or Landlock must call
//     [MaybeRunSandboxChild] first thing in main (the Landlock helper and
//     the probe run as the program itself); if one does not, the probe
//     fails and the backend is unavailable.
//   - Audit: with [Config.Audit], one entry (kind "grade") is written and
//     fsync'd before the command starts — if that fails, it does not run —
//     and one (kind "run") after it ends, tied by RunID.
//
// What remains: between the last identity check and execve there is still
// a window (the check cannot be atomic with exec without fexecve); without
// a sandbox (or under Seatbelt), a process that calls setsid and drops
// [RunMarkerEnv] from its environment outlives the run unnoticed.
package harness
