// Package schema holds bwpolicy's schemas and the shared CUE definition
// every profile unifies with, embedded so the binary needs no files:
//
//   - settings.schema.json: the settings a user writes (JSON Schema 2020-12,
//     also usable by editors through yaml-language-server);
//   - invocation.schema.json: the frozen invocation the compiler emits;
//   - sandbox.cue: #Profile, which carries every S property, and #Settings.
//
// Validate is the schema stage of the pipeline.
package schema

import _ "embed"

// SettingsJSON is settings.schema.json.
//
//go:embed settings.schema.json
var SettingsJSON []byte

// InvocationJSON is invocation.schema.json.
//
//go:embed invocation.schema.json
var InvocationJSON []byte

// SandboxCUE is sandbox.cue, the definitions every profile unifies with.
//
//go:embed sandbox.cue
var SandboxCUE []byte

// SettingsID is the stable $id of settings.schema.json.
const SettingsID = "https://bwpolicy.dev/schema/settings.schema.json"
