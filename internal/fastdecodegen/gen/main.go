// Command gen rewrites runtime/invocation/fastdecode_gen.go (see package
// fastdecodegen); `go generate ./runtime/invocation` runs it there.
package main

import (
	"fmt"
	"os"
	"reflect"

	"github.com/bwpolicy/bwpolicy/internal/fastdecodegen"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

func main() {
	src, err := fastdecodegen.Generate("invocation", reflect.TypeOf(invocation.Invocation{}))
	if err == nil {
		err = os.WriteFile("fastdecode_gen.go", src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
