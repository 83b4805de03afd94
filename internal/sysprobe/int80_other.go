//go:build !amd64

package main

// archProbes are probes of other ABIs; none on this architecture.
var archProbes = map[string]probe{}
