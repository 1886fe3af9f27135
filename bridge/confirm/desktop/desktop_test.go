package desktop

import (
	"strings"
	"time"
)

// hostile is a question whose every part from the client tries something:
// markup, an entity, quotes, a backslash, a shell substitution, a line
// break (escaped in JSON and raw), a bidirectional override (escaped and
// raw), an option-like value, a very long value.
var hostile = Question{
	Bridge:  "cad-freecad",
	Client:  "Claude <b>Desktop</b>",
	Tool:    "delete_<b>entities</b>",
	Timeout: 90 * time.Second,
	Args: []byte(`{"ids":[1,2],"note":"<b>bold</b> &amp; \"q\" 'q' back\\slash $(rm -rf ~) \\n \n next\u202eline ` + "\u202e" + `end",` +
		`"opt":"--timeout=0","-e":"x","long":"` + strings.Repeat("0123456789", 30) + `"}`),
}
