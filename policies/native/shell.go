package native

// shellRules mirrors policies/rules/shell.rego, rule by rule.
var shellRules = []Rule{}
