// Package rules holds rivumi's rule sources that are not Rego: the tables of
// program options and code-carrying argument positions that the parser uses,
// the embedded policy packs, and loaders for user packs, YAML prefix rules
// and testcase files.
//
// The tables here are data, kept apart from the parser's mechanics so that a
// reviewer can read what rivumi knows about each program in one place.
package rules
