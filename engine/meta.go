package engine

// builtinMeta returns the METADATA of the embedded packs' rules, by id. It
// is read from their annotations when rivumi is built, into
// builtin_meta.go (parsing METADATA, YAML, was a quarter of parsing the packs
// at every start). TestBuiltinMetaInSync fails while that file differs from
// the annotations; regenerate it with
//
//	go test ./engine -run TestBuiltinMetaInSync -update-meta
//
// The file also records the digest of the packs it was made from
// (builtinMetaDigest); compile uses the table only when the embedded packs
// still have that digest, and parses their METADATA otherwise, so a stale
// table slows a build down but never changes a rule's METADATA (say, makes
// an ask grantable).
// The map is shared: callers copy it before changing anything.
func builtinMeta() map[string]RuleMeta { return builtinMetaTable }
