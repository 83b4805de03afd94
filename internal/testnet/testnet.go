// Package testnet holds the network fixtures tests share: a listener
// that takes every connection, for Landlock's connect rules. Test-only.
package testnet

import (
	"net"
	"testing"
)

// ListenAndClose listens on network/address and accepts (and closes)
// every connection until the test ends.
func ListenAndClose(t *testing.T, network, address string) net.Listener {
	t.Helper()
	l, err := net.Listen(network, address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return l
}
