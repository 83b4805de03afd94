// Package testnet holds the network fixtures tests share: listeners
// that take every connection and hand it to a handler (closed at once
// for Landlock's connect rules, held unanswered for the bounds on
// policies that call the network). Test-only.
package testnet

import (
	"net"
	"testing"
)

// Serve listens on network/address and passes every connection to
// handle, on the accepting goroutine, until the test ends.
func Serve(t testing.TB, network, address string, handle func(net.Conn)) net.Listener {
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
			handle(c)
		}
	}()
	return l
}

// ListenAndClose listens on network/address and accepts (and closes)
// every connection until the test ends.
func ListenAndClose(t *testing.T, network, address string) net.Listener {
	t.Helper()
	return Serve(t, network, address, func(c net.Conn) { c.Close() })
}

// SilentURL is the http URL of a listener on 127.0.0.1 that accepts
// every connection and never answers (each is closed when the test
// ends).
func SilentURL(t *testing.T) string {
	t.Helper()
	l := Serve(t, "tcp", "127.0.0.1:0", func(c net.Conn) { t.Cleanup(func() { c.Close() }) })
	return "http://" + l.Addr().String() + "/"
}
