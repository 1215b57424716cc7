// Package workspace gives an agent a disposable clone of a repository,
// pinned to one commit, so that the source repository is never touched and
// the result of the agent's work is a reviewable patch.
//
// # Contracts
//
//   - [Prepare] takes a full 40-character commit SHA (no branch, tag or
//     abbreviation), checks it with `git rev-parse --verify SHA^{commit}`
//     in the source, clones with `git clone --no-hardlinks --no-checkout`
//     (so no object file is shared with the source), checks out with
//     `git checkout --detach SHA`, removes the clone's remote, and verifies
//     that HEAD is the SHA. Uncommitted changes in the source never reach
//     the clone; nothing is ever written to the source.
//   - The run directory (RUNROOT/NAME) must not exist yet and must not lie
//     inside the source repository (its work tree or its git directory,
//     symlinks resolved); NAME is one path segment. Preparation runs under
//     a deadline ([PrepareOptions.Timeout]); on any failure the partly made
//     run directory is removed.
//   - git runs with a hardened environment: no system or global config, no
//     prompts, hooks pointed at /dev/null, no fsmonitor, no external diff or
//     textconv — the source's own config may be hostile.
//   - [Open] reopens a prepared workspace (for a CLI that runs one tool call
//     per process) and holds an exclusive lock on it until [Workspace.Close].
//   - [Workspace.Finish] writes changes.patch (against the pinned commit,
//     files added with --intent-to-add included), scans it for secrets and
//     writes result.json; see package [bundle] for the layout.
//
// # Layout of a run directory
//
//	RUN/workspace/   the clone (detached HEAD at the pinned commit)
//	RUN/bundle/      the run bundle (request.json, events.jsonl, …)
//	RUN/tmp/         per-command temporary directories of the harness
//	RUN/.lock        held while a process works on the run
package workspace
