package queryapi

import (
	"encoding/json"
	"fmt"

	"github.com/invopop/jsonschema"
)

// Schema reflects a tool's parameter struct (its json and jsonschema tags)
// into the JSON schema of the tool's arguments: fields without omitempty are
// required and unknown properties are refused. Nested structs are inlined
// (parameter structs are not recursive), and $schema and $id are left out:
// they mean nothing to a model or an MCP client. The recall agent describes
// its tools to a language model with it, and the MCP server its tools to clients.
func Schema(params any) map[string]any {
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true}
	b, err := json.Marshal(r.Reflect(params))
	if err != nil {
		panic(fmt.Sprintf("queryapi: schema of %T: %v", params, err)) // fixed types: a programming error
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(fmt.Sprintf("queryapi: schema of %T: %v", params, err))
	}
	delete(m, "$schema")
	delete(m, "$id")
	return m
}
