package native

// fsRules mirrors policies/rules/fs.rego, rule by rule.
var fsRules = []Rule{}
