package secrets

import (
	"reflect"
	"testing"
)

// TestCommandsOwnWords: commands cuts a line into commands of words (a
// piped command starts with pipeMark), and the words of each command are
// its own although they share one array: appending to one command leaves
// the next as it was.
func TestCommandsOwnWords(t *testing.T) {
	got := commands(`a 'b c'; d "e\"f" | g\ h $(i j)`)
	want := [][]string{{"a", "b c"}, {"d", `e"f`}, {pipeMark, "g h", "$(i j)"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("commands = %q, want %q", got, want)
	}
	_ = append(got[0], "x")
	_ = append(got[1], "y")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after appending to the commands: %q, want %q", got, want)
	}
}
