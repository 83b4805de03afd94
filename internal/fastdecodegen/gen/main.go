// Command gen rewrites runtime/fastdecode_gen.go (see package
// fastdecodegen); `go generate ./runtime` runs it in runtime/.
package main

import (
	"fmt"
	"os"
	"reflect"

	"github.com/bwpolicy/bwpolicy/internal/fastdecodegen"
	"github.com/bwpolicy/bwpolicy/runtime"
)

func main() {
	src, err := fastdecodegen.Generate("runtime", reflect.TypeOf(runtime.Invocation{}))
	if err == nil {
		err = os.WriteFile("fastdecode_gen.go", src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
