package native

// readonlyRules mirrors policies/rules/readonly.rego, rule by rule.
var readonlyRules = []Rule{}
