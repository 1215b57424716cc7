package rivumi.lib.ere_test

import data.rivumi.lib.ere

# readable

test_readable if {
	every p in ["init", "^sys.*d$", "node server\\.js", "[[:alpha:]]+", "a|b", "", "x{1,2}"] {
		ere.readable(p)
	}
}

test_unreadable if {
	every p in ["system\\d", "\\<init", "x\\", "system[\\d]", "[a\\-z]nit", "[[=i=]]nit", "(?i)init", "ini{,1}t", "*init"] {
		not ere.readable(p)
	}
}

# matches_any

test_matches_any if {
	ere.matches_any("^HTTP\\.", {"user.name", "http.extraheader"})
	not ere.matches_any("^http\\.", {"user.name"})
	not ere.matches_any("\\w", {"user.name"})
}
