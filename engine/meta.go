package engine

// builtinMeta returns the METADATA of the embedded packs' rules, by id. It
// is read from their annotations when rivumi is built, into
// builtin_meta.go (parsing METADATA, YAML, was a quarter of parsing the packs
// at every start). TestBuiltinMetaInSync fails while that file differs from
// the annotations; regenerate it with
//
//	go test ./engine -run TestBuiltinMetaInSync -update-meta
func builtinMeta() map[string]RuleMeta { return builtinMetaTable }
