# METADATA
# title: Decision log mask
# description: |
#   For OPA's decision logs (decision_logs.mask_decision: rivumi/log/mask):
#   the graded command stays in the log, with what looks like a secret
#   (tokens, passwords, keys) replaced by rivumi.redact.
package rivumi.log

mask contains {"op": "upsert", "path": "/input/command", "value": rivumi.redact(input.input.command)} if {
	is_string(input.input.command)
}

mask contains {"op": "upsert", "path": "/input/argv", "value": [rivumi.redact(a) | some a in input.input.argv]} if {
	is_array(input.input.argv)
}
