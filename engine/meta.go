package engine

import (
	_ "embed"
	"encoding/json"
	"sync"
)

// builtin_meta.json is the METADATA of the embedded packs' rules, read from
// their annotations when rivumi is built: parsing METADATA (YAML) was a
// quarter of parsing the packs at every start. TestBuiltinMetaInSync fails
// when it differs from the annotations; regenerate it with
//
//	go test ./engine -run TestBuiltinMetaInSync -update-meta
//
//go:embed builtin_meta.json
var builtinMetaJSON []byte

var builtinMetaOnce = sync.OnceValues(func() (map[string]RuleMeta, error) {
	var m map[string]RuleMeta
	err := json.Unmarshal(builtinMetaJSON, &m)
	return m, err
})

// builtinMeta returns the embedded packs' METADATA by rule id. A file that
// does not decode is a build defect: it panics, and every test fails.
func builtinMeta() map[string]RuleMeta {
	m, err := builtinMetaOnce()
	if err != nil {
		panic("engine/builtin_meta.json: " + err.Error())
	}
	return m
}
