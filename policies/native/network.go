package native

import "strings"

// networkRules mirrors policies/rules/network.rego, rule by rule.
var networkRules = []Rule{
	// network.access: data.rivumi.tables.network[program].
	{ID: "network.access", Layer: Ask, Match: func(s *Seg, t *Tables) bool { return t.Network.Has(s.Program) }},
	// network.upload, four bodies: curl with an "@" in the value of a data,
	// form, upload-file or json option; curl with "upload-file" in flags;
	// wget with post-file or body-file; an uploads program with an operand
	// matching ^[^/]*: (a host:path).
	{ID: "network.upload", Layer: Ask, Match: func(s *Seg, t *Tables) bool {
		switch s.Program {
		case "curl":
			if s.Flag("upload-file") {
				return true
			}
			for _, k := range curlUploadOptions {
				for _, v := range s.Options[k] {
					if strings.Contains(v, "@") {
						return true
					}
				}
			}
		case "wget":
			if s.AnyFlag("post-file", "body-file") {
				return true
			}
		}
		if !t.Kind("uploads", s.Program) {
			return false
		}
		for _, o := range s.Operands {
			if hostPath(o.Text) {
				return true
			}
		}
		return false
	}},
}

// curlUploadOptions are the curl options whose value may name a file to
// send (network.upload's first body).
var curlUploadOptions = [...]string{"data", "data-binary", "data-raw", "data-urlencode", "form", "upload-file", "json"}

// hostPath: regex.match(`^[^/]*:`, x) — a ':' comes before any '/'.
func hostPath(x string) bool {
	i := strings.IndexAny(x, "/:")
	return i >= 0 && x[i] == ':'
}
