// Package opabuiltin runs rivumi's packs inside OPA itself. It provides
// the builtin functions
//
//	rivumi.parse(x)  → {"segments": [...], "shape": {...}, "limit": "...", "error": null|{...}, "floor": [...]}
//	rivumi.redact(s) → s with secrets replaced (for decision log masking)
//
// where x is a command string, or an object {"command": "…"} or
// {"argv": [...]} with optional "cwd", "workspace", "home" and "shell";
// each segment is the value the engine passes as input.segment (see
// [engine.SegmentTerm]). It also holds the Rego entrypoint
// (package rivumi.entry, [EntryModule]) that turns input.command into the
// engine's verdict, and [Bundle], which packs the policy, its data, the
// entrypoint and a decision log mask into an OPA bundle with the root
// "rivumi".
//
// [Register] adds the builtins to OPA globally (cmd/rivumi-opa calls it
// before running OPA's command tree); [Functions] adds them to one
// rego.Rego only.
package opabuiltin
