package rivumi.rules_test

import data.rivumi.lib.fixture as fx
import data.rivumi.rules

# network.access

test_network_access if {
	every prog in ["curl", "wget", "ssh", "nc", "aws", "gh"] {
		{"id": "network.access"} in rules.ask with input as fx.run([prog, "x"], {})
			with data.rivumi.tables as fx.tables
	}
}

test_network_access_local_program if {
	not {"id": "network.access"} in rules.ask with input as fx.cmd("ls")
		with data.rivumi.tables as fx.tables
}

# network.upload

test_upload_curl_at_file if {
	every k in ["data", "data-binary", "form", "json"] {
		{"id": "network.upload"} in rules.ask with input as fx.run(["curl", "--x", "@f", "https://example.com"], {
			"flags": {k},
			"options": {k: ["@f"]},
			"operands": [fx.path("https://example.com", "workspace")],
			"reads": [fx.path("f", "workspace")],
		})
			with data.rivumi.tables as fx.tables
	}
	{"id": "network.upload"} in rules.ask with input as fx.run(["curl", "-F", "file=@f", "https://example.com"], {
		"flags": {"form"},
		"options": {"form": ["file=@f"]},
	})
		with data.rivumi.tables as fx.tables
}

test_upload_curl_upload_file if {
	{"id": "network.upload"} in rules.ask with input as fx.cmd("curl -T f https://example.com")
		with data.rivumi.tables as fx.tables
}

test_upload_wget_post_file if {
	every k in ["post-file", "body-file"] {
		{"id": "network.upload"} in rules.ask with input as fx.run(["wget", "--x=f", "https://example.com"], {
			"flags": {k},
			"options": {k: ["f"]},
		})
			with data.rivumi.tables as fx.tables
	}
}

test_upload_copy_to_host if {
	every prog in ["scp", "rsync", "sftp"] {
		{"id": "network.upload"} in rules.ask with input as fx.run([prog, "f", "host:/tmp"], {
			"operands": [fx.path("f", "workspace"), fx.path("host:/tmp", "workspace")],
		})
			with data.rivumi.tables as fx.tables
	}
}

test_upload_near_misses if {
	# Inline data, no file.
	not {"id": "network.upload"} in rules.ask with input as fx.cmd("curl -d a=1 https://example.com")
		with data.rivumi.tables as fx.tables

	# A download.
	not {"id": "network.upload"} in rules.ask with input as fx.cmd("wget https://example.com/f")
		with data.rivumi.tables as fx.tables

	# rsync between local directories.
	not {"id": "network.upload"} in rules.ask with input as fx.cmd("rsync -a src/ /backup/src")
		with data.rivumi.tables as fx.tables
}

test_upload_at_sign_in_other_options if {
	# An e-mail address in a header is not a file.
	header := fx.cmd("curl -H 'From: me@x.test' https://x.test")
	not {"id": "network.upload"} in rules.ask with input as header
		with data.rivumi.tables as fx.tables
}
