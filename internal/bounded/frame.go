package bounded

import (
	"encoding/gob"
	"io"
)

// request is one call, parent to child.
type request struct {
	Op   string
	Body []byte
}

// reply is the child's answer to a call, or its report of a crossed
// bound (Exceeded set; the child exits right after).
type reply struct {
	Body     []byte
	Err      *Remote
	Exceeded *Exceeded
}

// codec reads and writes gob frames on a pipe.
type codec struct {
	enc *gob.Encoder
	dec *gob.Decoder
}

func newCodec(r io.Reader, w io.Writer) *codec {
	return &codec{enc: gob.NewEncoder(w), dec: gob.NewDecoder(r)}
}
