# Network: fetches, uploads, remote access.
package rivumi.rules

import data.rivumi.lib.segment as seg

# METADATA
# title: Network access
# custom:
#   id: network.access
#   grantable: true
#   justification: The command talks to the network; confirm the host and what is sent or fetched.
ask contains {"id": "network.access"} if {
	data.rivumi.tables.network[input.segment.program]
}

# METADATA
# title: Uploading files
# custom:
#   id: network.upload
#   grantable: true
#   justification: >-
#     curl -d @file / -T / -F @file, wget --post-file and scp/rsync to a host send local files away,
#     possibly secrets. Confirm what leaves the machine.
ask contains {"id": "network.upload"} if {
	input.segment.program == "curl"
	some k in {"data", "data-binary", "data-raw", "data-urlencode", "form", "upload-file", "json"}
	some v in input.segment.options[k]
	contains(v, "@")
}

ask contains {"id": "network.upload"} if {
	input.segment.program == "curl"
	"upload-file" in input.segment.flags
}

ask contains {"id": "network.upload"} if {
	input.segment.program == "wget"
	some k in {"post-file", "body-file"}
	seg.has_flag(k)
}

ask contains {"id": "network.upload"} if {
	data.rivumi.tables.kinds.uploads[input.segment.program]
	some o in input.segment.operands
	regex.match(`^[^/]*:`, o.text)
}
