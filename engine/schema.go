package engine

import (
	_ "embed"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/util"
)

// InputSchema is the JSON Schema of the input document the policy sees for
// one segment ({"segment", "index", "count", "shape", "granted"}). Objects
// allow no other fields, so a rule that reads one (a typo:
// input.segment.write_class) fails to compile. Sets (flags, tags, classes,
// granted) have no JSON Schema type and are left untyped.
//
//go:embed input.schema.json
var InputSchema []byte

// InputSchemas returns the schema set the compiler checks user packs
// against: InputSchema for input.
var InputSchemas = sync.OnceValue(func() *ast.SchemaSet {
	var v any
	if err := util.Unmarshal(InputSchema, &v); err != nil {
		panic("engine: input.schema.json: " + err.Error())
	}
	ss := ast.NewSchemaSet()
	ss.Put(ast.SchemaRootRef, v)
	return ss
})
