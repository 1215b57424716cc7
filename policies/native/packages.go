package native

// packagesRules mirrors policies/rules/packages.rego, rule by rule.
var packagesRules = []Rule{}
