# METADATA
# title: POSIX extended regular expressions
# description: >-
#   Which EREs (glibc's regcomp with REG_EXTENDED, as pkill, killall -r and git config
#   --get-regexp compile them) Go's regexp reads the same way, so that regex.match can stand
#   in for the program when it asks what a pattern could match.
package rivumi.lib.ere

# readable(p): p is a Go regexp that means what glibc's ERE means: no backslash but before
# . \ * + ? ( ) [ ] { } | ^ $ / - (glibc reads \w \s \< \' and \d, \t as d, t; Go otherwise),
# no backslash at all with a bracket ([\d] and [a\-z] differ), no [= [. (? or {,.
readable(p) if {
	regex.is_valid(p)
	not regex.match(`\\([^.\\*+?()\[\]{}|^$/-]|$)`, p)
	not bracket_escape(p)
	not regex.match(`\[[=.]|\(\?|\{,`, p)
}

bracket_escape(p) if {
	contains(p, "[")
	contains(p, "\\")
}

# matches_any(p, subjects): p, case folded (a locale's collation may put upper case inside a
# range; git lowercases section and variable names), finds a match in one of subjects.
matches_any(p, subjects) if {
	readable(p)
	some s in subjects
	regex.match(concat("", ["(?i)", p]), s)
}
