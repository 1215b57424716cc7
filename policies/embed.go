// Package policies embeds rivumi's built-in Rego packs and their data
// tables. The Rego lives next to this file; `opa test policies/` runs its
// tests directly.
package policies

import "embed"

// FS holds the built-in packs: main.rego (the layering), rules/*.rego
// (package rivumi.rules), lib/*.rego (helpers) and tables/*.json (data
// under data.rivumi.tables), with their _test.rego files.
//
//go:embed main.rego main_user.rego rules/*.rego lib/*.rego tables/*.json
var FS embed.FS
