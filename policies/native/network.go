package native

// networkRules mirrors policies/rules/network.rego, rule by rule.
var networkRules = []Rule{}
