package limits_test

import data.bwpolicy.custom.limits

test_big_memory_denied if {
	count(limits.deny) == 1 with input as {"settings": {"memory_mb": 8192}}
}

test_4096_allowed if {
	count(limits.deny) == 0 with input as {"settings": {"memory_mb": 4096}}
}

test_no_limit_warned if {
	count(limits.warn) == 1 with input as {"settings": {"memory_mb": 0}}
}
