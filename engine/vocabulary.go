package engine

import "github.com/rivumi/rivumi/parser"

// The tag and path-class sets the built-in packs test, as data
// (data.rivumi.tables.sets, policies/tables/tables.json: a lookup there costs
// less per verdict than a set literal). tables.json is generated from these
// lists (go test ./engine -run TestVocabularyCurrent -update-vocabulary) and
// the test fails while it is stale; input.schema.json's enumerations of tags
// and classes come from the parser's constants the same way.

// unknowableTags make a segment unknowable or mark code that runs: no allow
// rule covers a segment with one.
var unknowableTags = []string{
	parser.TagDynamicProgram, parser.TagChangedShell, parser.TagDynamicCode, parser.TagFetchedCode,
	parser.TagStdinCode, parser.TagScriptFile, parser.TagInteractive, parser.TagRunsDownloaded,
	parser.TagForkBomb, parser.TagCodeCritical, parser.TagCodeRevShell, parser.TagCodeSpawns,
	parser.TagArithDynamic, parser.TagResolution, parser.TagCodeUnsafe, parser.TagAppendedArgs,
	parser.TagNameNormalized,
}

// unreadableClasses are the classes whose reading needs consent: the
// secrets (parser.SecretClasses), devices, paths nobody can know beforehand
// (cat "$f"), and globs of / or of home (cat ~/.s?h/id_rsa, cat /etc/*).
var unreadableClasses = append(append([]string{}, parser.SecretClasses...),
	parser.ClassDevice, parser.ClassDynamic, parser.ClassUnknown, parser.ClassRoot, parser.ClassHome,
	parser.ClassSystemTop)

// vocabularySets is the document of tables.json.
func vocabularySets() map[string]any {
	set := func(xs []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	return map[string]any{"rivumi": map[string]any{"tables": map[string]any{"sets": map[string]any{
		"unknowable_tags":    set(unknowableTags),
		"unreadable_classes": set(unreadableClasses),
		"secret_classes":     set(parser.SecretClasses),
	}}}}
}
