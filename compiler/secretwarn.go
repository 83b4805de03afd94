package compiler

// secretWarnings says what H7 could not do for the hidden paths: the
// second mounts it could not look through (facts.MountNotes), and the
// hidden files git tracks, whose content stays readable from the
// repository (facts.Tracked), positioned on their hide entry.
func (e *emitter) secretWarnings() {
	for _, n := range e.f.MountNotes {
		e.warn("H7", n)
	}
}
