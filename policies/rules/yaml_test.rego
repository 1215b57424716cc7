package rivumi.rules_test

import data.rivumi.lib.fixture as fx
import data.rivumi.rules

# YAML prefix rules as the engine records them (rules.YAMLRule.Data).
yaml_rules := {
	"deny_by_program": {"git": [{
		"id": "team.no-force-push",
		"words": [["push"]],
		"options": [[
			{"exact": "--force", "assign": "--force=", "names": ["force"], "letters": [], "pair": []},
			{
				"exact": "-f", "assign": "", "names": [], "pair": [],
				"letters": [{"letter": "f", "names": ["f", "force"]}],
			},
		]],
		"later": [],
	}]},
	"ask_by_program": {
		"kubectl": [
			{
				"id": "team.kubectl-delete",
				"words": [["delete"]],
				"options": [],
				"later": [["pod", "pods"]],
			},
			{
				"id": "team.kubectl-prod",
				"words": [["apply"]],
				"options": [[{
					"exact": "--namespace=prod", "assign": "", "names": [], "letters": [],
					"pair": ["--namespace", "prod"],
				}]],
				"later": [],
			},
		],
		"gh": [{
			"id": "team.gh-api-delete",
			"words": [["api"]],
			"options": [[{
				"exact": "-X", "assign": "", "names": [], "pair": [],
				"letters": [{"letter": "X", "names": ["X", "method"]}],
			}]],
			"later": [["DELETE"]],
		}],
		"helm": [{
			"id": "team.helm-reuse",
			"words": [["upgrade"]],
			"options": [[{
				"exact": "--reuse-values", "assign": "--reuse-values=", "names": [], "letters": [],
				"pair": [],
			}]],
			"later": [],
		}],
	},
	"allow_by_program": {
		"npm": [{
			"id": "team.npm-lint",
			"words": [["run"], ["lint", "format"]],
			"options": [],
			"later": [],
		}],
		"gojq": [{"id": "team.gojq", "words": [], "options": [], "later": []}],
	},
}

# YAML deny: the words as a prefix, the option anywhere.

test_yaml_deny_option_anywhere if {
	{"id": "team.no-force-push"} in rules.deny with input as fx.cmd("git push origin main --force")
		with data.rivumi.yaml as yaml_rules
}

test_yaml_deny_bundled_letter if {
	{"id": "team.no-force-push"} in rules.deny with input as fx.cmd("git push -fu origin")
		with data.rivumi.yaml as yaml_rules
}

test_yaml_deny_after_global_options if {
	{"id": "team.no-force-push"} in rules.deny with input as fx.cmd("git -C sub push --force")
		with data.rivumi.yaml as yaml_rules
}

test_yaml_deny_near_misses if {
	not {"id": "team.no-force-push"} in rules.deny with input as fx.cmd("git push origin main")
		with data.rivumi.yaml as yaml_rules
	not {"id": "team.no-force-push"} in rules.deny with input as fx.cmd("git fetch --force")
		with data.rivumi.yaml as yaml_rules
}

# YAML ask: later words among the rest of the words.

test_yaml_ask_later_words if {
	{"id": "team.kubectl-delete"} in rules.ask with input as fx.cmd("kubectl delete -n dev pod web")
		with data.rivumi.yaml as yaml_rules
}

test_yaml_ask_near_misses if {
	not {"id": "team.kubectl-delete"} in rules.ask with input as fx.cmd("kubectl delete svc web")
		with data.rivumi.yaml as yaml_rules
	not {"id": "team.kubectl-delete"} in rules.ask with input as fx.cmd("kubectl get pods")
		with data.rivumi.yaml as yaml_rules
}

# YAML allow: the whole pattern as an argv prefix, on a plain segment.

test_yaml_allow_prefix if {
	every script in ["lint", "format"] {
		{"id": "team.npm-lint"} in rules.allow with input as fx.run(["npm", "run", script, "--", "--fix"], {
			"subcommand": "run",
		})
			with data.rivumi.yaml as yaml_rules
	}
}

test_yaml_allow_near_misses if {
	not {"id": "team.npm-lint"} in rules.allow with input as fx.run(["npm", "run", "build"], {"subcommand": "run"})
		with data.rivumi.yaml as yaml_rules

	# The word is there but only at run time.
	not {"id": "team.npm-lint"} in rules.allow with input as fx.run(["npm", "run", "$S"], {
		"subcommand": "run",
		"dynamic": [false, false, true],
		"tags": {"dynamic-args"},
	})
		with data.rivumi.yaml as yaml_rules

	# Not plain: wrapped by sudo.
	not {"id": "team.npm-lint"} in rules.allow with input as fx.run(["npm", "run", "lint"], {
		"subcommand": "run",
		"wrappers": [fx.wrapper("sudo", [])],
	})
		with data.rivumi.yaml as yaml_rules

	# Writes outside the workspace.
	not {"id": "team.npm-lint"} in rules.allow with input as fx.run(["npm", "run", "lint"], {
		"subcommand": "run",
		"redirects": [fx.redirect(">", "/tmp/lint.log", "tmp")],
		"writes": [fx.path("/tmp/lint.log", "tmp")],
	})
		with data.rivumi.yaml as yaml_rules
}

test_yaml_deny_letters_only_from_short_options if {
	# --follow-tags has an f, but it is a long option.
	not {"id": "team.no-force-push"} in rules.deny with input as fx.cmd("git push --follow-tags origin")
		with data.rivumi.yaml as yaml_rules

	# A refspec with an f in it is not an option.
	not {"id": "team.no-force-push"} in rules.deny with input as fx.cmd("git push origin HEAD:refs/fix")
		with data.rivumi.yaml as yaml_rules
}

test_yaml_allow_reads_no_secret_and_runs_no_code if {
	not {"id": "team.npm-lint"} in rules.allow with input as fx.run(["npm", "run", "lint", ".env"], {
		"subcommand": "run",
		"operands": [fx.path(".env", "secret")],
	})
		with data.rivumi.yaml as yaml_rules
		with data.rivumi.tables as fx.tables
	not {"id": "team.npm-lint"} in rules.allow with input as fx.run(["npm", "run", "lint"], {
		"subcommand": "run",
		"code": [fx.code("shell", "ls", true)],
	})
		with data.rivumi.yaml as yaml_rules
}

test_yaml_allow_covers_safe_jq if {
	# A jq filter in the safe subset is data transformation, not code.
	{"id": "team.gojq"} in rules.allow with input as fx.run(["gojq", ".a", "f.json"], {
		"operands": [fx.path("f.json", "workspace")],
		"code": [fx.code("jq", ".a", true)],
	})
		with data.rivumi.yaml as yaml_rules

	# Outside the subset, or code in another language.
	not {"id": "team.gojq"} in rules.allow with input as fx.run(["gojq", "-n", "$ENV"], {
		"code": [fx.code("jq", "$ENV", false)],
		"tags": {"code-unsafe", "secret-env"},
	})
		with data.rivumi.yaml as yaml_rules
	not {"id": "team.gojq"} in rules.allow with input as fx.run(["gojq", "x"], {"code": [fx.code("awk", "x", true)]})
		with data.rivumi.yaml as yaml_rules
}

test_yaml_option_spellings if {
	# --name=value given as two words.
	two_words := fx.cmd("kubectl apply --namespace prod -f k/")
	{"id": "team.kubectl-prod"} in rules.ask with input as two_words
		with data.rivumi.yaml as yaml_rules
	{"id": "team.kubectl-prod"} in rules.ask with input as fx.cmd("kubectl apply --namespace=prod")
		with data.rivumi.yaml as yaml_rules

	# A later word given as an option's value; the option by its long name.
	{"id": "team.gh-api-delete"} in rules.ask with input as fx.cmd("gh api --method=DELETE repos/o/r")
		with data.rivumi.yaml as yaml_rules

	# --name=value for an option the rule names bare.
	{"id": "team.helm-reuse"} in rules.ask with input as fx.cmd("helm upgrade --reuse-values=true app")
		with data.rivumi.yaml as yaml_rules
}

test_yaml_option_spellings_near_misses if {
	not {"id": "team.kubectl-prod"} in rules.ask with input as fx.cmd("kubectl apply --namespace dev")
		with data.rivumi.yaml as yaml_rules
	not {"id": "team.gh-api-delete"} in rules.ask with input as fx.cmd("gh api --method=GET repos/o/r")
		with data.rivumi.yaml as yaml_rules
	not {"id": "team.helm-reuse"} in rules.ask with input as fx.cmd("helm upgrade --reset-values app")
		with data.rivumi.yaml as yaml_rules
}
