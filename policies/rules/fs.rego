# Files: the one path policy for every write target, deletes below the floor,
# permission changes, archives, secrets.
package rivumi.rules

import data.rivumi.lib.segment as seg

# METADATA
# title: Writing a protected path
# custom:
#   id: fs.protected-write
#   scope: redirect
#   justification: >-
#     .git/, agent and rivumi configuration, shell start-up files, ~/.ssh, CI workflows and .envrc
#     control what runs later, outside any review. Change them by hand, not from an agent.
deny contains {"id": "fs.protected-write"} if {
	"writes" in input.segment.tags
	some c in input.segment.write_classes
	c in seg.protected_classes
}

# METADATA
# title: Writing outside the workspace
# custom:
#   id: fs.write-outside
#   scope: redirect
#   justification: The command writes outside the workspace (or somewhere that cannot be known); confirm the target.
ask contains {"id": "fs.write-outside"} if {
	"writes" in input.segment.tags
	some c in input.segment.write_classes
	not c in {"workspace", "null", "instructions", "project-code"}
	not c in seg.protected_classes
}

# METADATA
# title: Changing agent instructions
# custom:
#   id: fs.instructions-write
#   scope: redirect
#   justification: >-
#     CLAUDE.md, AGENTS.md, GEMINI.md and similar files are loaded as instructions by every later
#     agent session; an injected change would persist. Confirm the change.
ask contains {"id": "fs.instructions-write"} if "instructions" in input.segment.write_classes

# METADATA
# title: Writing code a program loads
# custom:
#   id: fs.project-code-write
#   scope: redirect
#   justification: >-
#     mise.local.toml, .config/mise/config.toml and similar files are loaded by the shims of asdf and
#     mise whenever a program they stand in for starts (python3 -V included); writing one is writing
#     code. Confirm it.
ask contains {"id": "fs.project-code-write"} if "project-code" in input.segment.write_classes

# METADATA
# title: Deleting files
# custom:
#   id: fs.delete
#   grantable: true
#   justification: Deleting files cannot be undone from here; confirm what goes.
ask contains {"id": "fs.delete"} if {
	data.rivumi.tables.kinds.deletes[input.segment.program]
	not seg.query_only
	not workspace_delete
}

# METADATA
# title: Deleting named files in the workspace
# custom:
#   id: allow.workspace-delete
#   justification: >-
#     rm (or unlink) of named files, without -r or -d, that are all plain workspace files (not .git/, agent
#     configuration, instructions, code a program loads or secrets) removes what the agent made or can recreate.
allow contains {"id": "allow.workspace-delete"} if workspace_delete

# workspace_delete holds for a non-recursive rm of workspace files named
# plainly or by a glob with a literal part in a workspace directory (rm
# *.pyc; rm * asks). rm removes a symlink, not its target, but a link is
# graded where it points too (write_classes), so a link out of the
# workspace is not a workspace file here.
workspace_delete if {
	data.rivumi.tables.kinds.deletes_named[input.segment.program]
	seg.plain
	count(input.segment.operands) > 0
	every f in input.segment.flags {
		f in {"force", "verbose", "i", "I", "interactive"}
	}
	input.segment.write_classes == {"workspace"}
	every o in input.segment.operands {
		delete_operand_ok(o)
	}
	seg.reads_ok
}

delete_operand_ok(o) if {
	not o.dynamic
	o.class == "workspace"
}

delete_operand_ok(o) if {
	o.dynamic
	o.class == "workspace"
	narrow_glob(o.text)
}

# narrow_glob holds for a glob whose last part has a literal character
# besides dots once bracket expressions are dropped: *.pyc, test_*.py, not
# *, *.* or [!.]*. It also needs a literal that no dangerous rm option
# spells, so a planted file cannot match it and become an option: not the
# short ones (-rf) and not the long ones or their abbreviations
# (--recursive, --rec, --no-preserve-root, --force, --dir), which *ive or
# *rec* would match. A name that matches *.pyc and starts with - is an
# invalid option: rm stops.
narrow_glob(t) if {
	parts := split(t, "/")
	last := regex.replace(parts[count(parts) - 1], `\[[^]]*\]`, "")
	regex.match(`[*?]`, last)
	regex.match(`[^*?.]`, last)
	regex.match(`[^*?=\-IRcdefinoprstuv]`, last)
}

ask contains {"id": "fs.delete"} if {
	input.segment.program == "find"
	"delete" in input.segment.flags
}

# METADATA
# title: Changing permissions or ownership
# custom:
#   id: fs.permissions
#   grantable: true
#   justification: chmod, chown, chgrp, chattr and setfacl change who may read, write or run files.
ask contains {"id": "fs.permissions"} if {
	data.rivumi.tables.kinds.permissions[input.segment.program]
	not workspace_chmod
}

# METADATA
# title: Changing permissions of workspace files
# custom:
#   id: allow.workspace-chmod
#   justification: >-
#     chmod +x script.sh or chmod 644 f of workspace files, without -R, setuid, setgid or sticky bits, only sets
#     who may read, write or run them; running one is graded on its own.
allow contains {"id": "allow.workspace-chmod"} if workspace_chmod

workspace_chmod if {
	input.segment.program == "chmod"
	seg.plain
	seg.static_args
	count(input.segment.operands) > 1
	every f in input.segment.flags {
		f in {"changes", "silent", "verbose"}
	}
	plain_mode(input.segment.operands[0].text)
	input.segment.write_classes == {"workspace"}
}

# plain_mode: an octal mode without setuid, setgid or sticky bits, or
# symbolic clauses of r, w, x, X and u/g/o copies (no s, t).
plain_mode(m) if regex.match(`^0*[0-7]{1,3}$`, m)

plain_mode(m) if regex.match(`^[ugoa]*([-+=][rwxXugo]*)+(,[ugoa]*([-+=][rwxXugo]*)+)*$`, m)

# METADATA
# title: Unpacking or writing archives
# custom:
#   id: fs.archive
#   grantable: true
#   justification: Archives can write anywhere (absolute paths, ../, symlinks); confirm the archive and target.
ask contains {"id": "fs.archive"} if {
	data.rivumi.tables.kinds.archives[input.segment.program]
	count(input.segment.writes) > 0
}

ask contains {"id": "fs.archive"} if {
	data.rivumi.tables.kinds.extracts[input.segment.program]
	not readonly_listing
}

# METADATA
# title: Reading secrets
# custom:
#   id: fs.read-secret
#   grantable: true
#   justification: The command reads a secret (.env, keys, cloud credentials, ~/.ssh, /etc/shadow) that may leave the machine.
ask contains {"id": "fs.read-secret"} if {
	# The secret classes are one list (parser.SecretClasses), as data.
	some c in input.segment.read_classes
	data.rivumi.tables.sets.secret_classes[c]
}

ask contains {"id": "fs.read-secret"} if "secret-env" in input.segment.tags

# METADATA
# title: Reading files in a home directory
# custom:
#   id: fs.read-home
#   grantable: true
#   justification: >-
#     The command reads the contents of files in a home directory outside the workspace (agent transcripts,
#     app configuration, caches), which hold tokens and conversation history. Listings and metadata (ls, stat,
#     find without -exec, du) and public files (~/.ssh/*.pub, known_hosts) need no consent.
ask contains {"id": "fs.read-home"} if "home-read" in input.segment.tags

# METADATA
# title: Searching the whole home or system
# custom:
#   id: fs.read-broad
#   grantable: true
#   justification: >-
#     A recursive search of /, the home directory or a system directory reads every secret in it
#     (keys, tokens, cloud credentials). Search inside the workspace instead.
ask contains {"id": "fs.read-broad"} if {
	data.rivumi.tables.kinds.searches[input.segment.program]
	count(input.segment.read_classes & {"root", "home", "system-top"}) > 0
	broad_read
	not names_only
}

# A recursive read of a hidden directory of home (~/.config holds gh and
# gcloud tokens, ~/.local/share the keyrings) reaches secrets too.
ask contains {"id": "fs.read-broad"} if {
	data.rivumi.tables.kinds.searches_contents[input.segment.program]
	some r in input.segment.reads
	startswith(r.path, "~/.")
	broad_read
	not names_only
}

# find and tree list names and metadata: with only their read-only options
# and nothing they run (-exec, -execdir), a wide walk reads no file's
# contents (find / -maxdepth 2 -name '*.md').
names_only if {
	data.rivumi.tables.kinds.lists_names[input.segment.program]
	readonly_flags_ok
	not "exec" in input.segment.flags
	not "execdir" in input.segment.flags
}

broad_read if data.rivumi.tables.kinds.reads_tree[input.segment.program]

broad_read if {
	input.segment.program == "cp"
	some f in {"recursive", "archive"}
	f in input.segment.flags
}

broad_read if {
	some f in {"recursive", "r", "dereference-recursive", "R"}
	f in input.segment.flags
}

# METADATA
# title: Linking or copying over files
# custom:
#   id: fs.overwrite
#   grantable: true
#   justification: ln -f, cp -f and install replace files; confirm the target.
ask contains {"id": "fs.overwrite"} if {
	data.rivumi.tables.kinds.overwrites[input.segment.program]
}

# METADATA
# title: Tampering with shell history
# custom:
#   id: fs.history
#   scope: shape
#   justification: Clearing or redirecting shell history hides what was run.
ask contains {"id": "fs.history"} if {
	input.segment.program == "history"
	some f in {"c", "d", "w", "r", "a", "n"}
	seg.has_flag(f)
}

ask contains {"id": "fs.history"} if {
	"assigns" in input.segment.tags
	some a in input.segment.assigns
	a.name in {"HISTFILE", "HISTSIZE", "HISTFILESIZE", "HISTCONTROL", "HISTIGNORE"}
}

ask contains {"id": "fs.history"} if {
	input.segment.program == "unset"
	some o in input.segment.operands
	startswith(o.text, "HIST")
}

ask contains {"id": "fs.history"} if {
	"writes" in input.segment.tags
	some w in input.segment.writes
	regex.match(`(^|/)\.(bash|zsh|sh|python|node_repl|psql|mysql)_?history$`, w.path)
}
