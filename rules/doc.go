// Package rules holds rivumi's rule sources that are not Rego: the option
// tables and argument scanning the parser uses (over the program registry,
// package programs), the loaders of YAML prefix rules, testcase files and
// configuration files (user and project, and what an untrusted project file may do). The policy
// packs themselves are in package policies.
//
// The tables here are data, kept apart from the parser's mechanics so that a
// reviewer can read what rivumi knows about each program in one place.
package rules
