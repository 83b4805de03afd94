package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/serve"
)

// serveCall is `sbxtool serve-call SOCKET [--kill-at FILE] -- ARGS...`:
// one request to a bwrun --serve (ARGS: bwrun's arguments without the
// program), with this process's environment and streams; with
// --kill-at, Kill once FILE exists. Prints "serve-reply: JSON" (or
// "serve-reply: none") on stderr last and exits with the reply's
// exit_status (125 without one).
func serveCall(args []string) {
	if len(args) < 3 {
		usage()
	}
	sock, args := args[0], args[1:]
	killAt := ""
	if args[0] == "--kill-at" && len(args) > 2 {
		killAt, args = args[1], args[2:]
	}
	if args[0] != "--" {
		usage()
	}
	c, err := serve.Dial(sock)
	if err != nil {
		fmt.Fprintf(os.Stderr, "serve-reply: none (dial: %v)\n", err)
		os.Exit(125)
	}
	if err := c.Send(serve.Request{Args: args[1:], Env: os.Environ()}, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "serve-reply: none (send: %v)\n", err)
		os.Exit(125)
	}
	if killAt != "" {
		go func() {
			for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				if _, err := os.Lstat(killAt); err == nil {
					c.Kill()
					return
				}
			}
		}()
	}
	reply, _ := c.Reply()
	var st struct {
		ExitStatus *int `json:"exit_status"`
	}
	if len(reply) == 0 || json.Unmarshal(reply, &st) != nil || st.ExitStatus == nil {
		fmt.Fprintf(os.Stderr, "serve-reply: none %q\n", reply)
		os.Exit(125)
	}
	fmt.Fprintf(os.Stderr, "serve-reply: %s\n", reply)
	os.Exit(*st.ExitStatus)
}
