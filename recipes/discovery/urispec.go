package discovery

import (
	"fmt"
	"strings"
)

// Curator's predefined URISpec fields (Curator's UriSpec).
const (
	FieldScheme              = "scheme" // "https" when the instance has an SSL port, else "http"
	FieldName                = "name"
	FieldID                  = "id"
	FieldAddress             = "address"
	FieldPort                = "port"
	FieldSSLPort             = "ssl-port"
	FieldRegistrationTimeUTC = "registration-time-utc"
	FieldServiceType         = "service-type" // lower case: "dynamic", ...
	FieldOpenBrace           = "["            // always "{"
	FieldCloseBrace          = "]"            // always "}"
)

// URISpec is a URI template with replacement fields, as Curator's UriSpec:
// "{scheme}://{address}:{port}" has three. Its JSON is Curator's:
// {"parts":[{"value":"scheme","variable":true},...]}.
type URISpec struct {
	Parts []URIPart `json:"parts"`
}

// URIPart is one token of a URISpec: a literal, or a field name when
// Variable.
type URIPart struct {
	Value    string `json:"value"`
	Variable bool   `json:"variable"`
}

// ParseURISpec parses a template as Curator does: text between { and } is a
// field name (trimmed); a brace out of place is an error naming the spec.
func ParseURISpec(spec string) (*URISpec, error) {
	u := &URISpec{Parts: []URIPart{}}
	inside := false
	for rest := spec; rest != ""; {
		if c := rest[0]; c == '{' || c == '}' {
			if (c == '{') == inside {
				return nil, fmt.Errorf("%w: uri spec %q: %q out of place", ErrInvalidArgument, spec, string(c))
			}
			inside = c == '{'
			rest = rest[1:]
			continue
		}
		n := strings.IndexAny(rest, "{}")
		if n < 0 {
			n = len(rest)
		}
		tok := rest[:n]
		if inside {
			tok = strings.TrimSpace(tok)
		}
		u.Parts = append(u.Parts, URIPart{Value: tok, Variable: inside})
		rest = rest[n:]
	}
	if inside {
		return nil, fmt.Errorf("%w: uri spec %q: final variable not closed", ErrInvalidArgument, spec)
	}
	return u, nil
}

// Build builds the URI with only vars and the fixed fields (scheme "http",
// "[" and "]"); ServiceInstance.BuildURI adds the instance's fields. A field
// without a value adds nothing, as in Curator.
func (u *URISpec) Build(vars map[string]any) string { return u.build(nil, vars) }

func (u *URISpec) build(instance, vars map[string]any) string {
	var b strings.Builder
	for _, p := range u.Parts {
		if !p.Variable {
			b.WriteString(p.Value)
			continue
		}
		if v, ok := lookup(p.Value, vars, instance); ok {
			fmt.Fprint(&b, v)
		}
	}
	return b.String()
}

// lookup finds a field's value: vars first, then the instance's fields,
// then the fixed ones.
func lookup(name string, vars, instance map[string]any) (any, bool) {
	if v, ok := vars[name]; ok && v != nil {
		return v, true
	}
	if v, ok := instance[name]; ok {
		return v, true
	}
	switch name {
	case FieldOpenBrace:
		return "{", true
	case FieldCloseBrace:
		return "}", true
	case FieldScheme:
		return "http", true
	}
	return nil, false
}
