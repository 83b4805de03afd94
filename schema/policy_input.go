package schema

import _ "embed"

// PolicyInputJSON is policy-input.schema.json: the shape of the input
// every Rego rule sees ({settings, profile, facts}), published for
// organisation rules and used to type-check them.
//
//go:embed policy-input.schema.json
var PolicyInputJSON []byte

// PolicyInputID is the stable $id of policy-input.schema.json.
const PolicyInputID = "https://bwpolicy.dev/schema/policy-input.schema.json"
