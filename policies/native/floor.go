package native

// floorRules mirrors policies/rules/floor.rego, rule by rule.
var floorRules = []Rule{
	// floor.fork-bomb: "fork-bomb" in input.segment.tags.
	{ID: "floor.fork-bomb", Layer: Floor, Match: func(s *Seg, _ *Tables) bool { return s.Tag("fork-bomb") }},
	// floor.device-write: "device" in input.segment.write_classes.
	{ID: "floor.device-write", Layer: Floor, Match: func(s *Seg, _ *Tables) bool { return s.WriteClass("device") }},
}
