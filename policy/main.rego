# The entry point the Go side queries once per compile: the built-in
# rules' decisions and the organisation's own (packages under
# bwpolicy.custom, each with deny and warn sets of {msg, path}).
package bwpolicy.main

default custom := {}

custom := data.bwpolicy.custom

result := {
	"deny": data.bwpolicy.rules.deny,
	"warn": data.bwpolicy.rules.warn,
	"custom": custom,
}
