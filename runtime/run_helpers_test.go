package runtime

import (
	"context"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// Run executes argv in the sandbox inv describes and returns the
// command's exit status: RunWith without options, keeping only the
// status and the error (the tests' shorthand).
func Run(ctx context.Context, inv *invocation.Invocation, argv []string, stdio Stdio) (int, error) {
	st, err := RunWith(ctx, inv, argv, stdio, Options{})
	return st.ExitStatus, err
}
