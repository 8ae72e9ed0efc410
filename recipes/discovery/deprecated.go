package discovery

// UriSpec is the former name of URISpec.
//
// Deprecated: use URISpec.
type UriSpec = URISpec

// UriPart is the former name of URIPart.
//
// Deprecated: use URIPart.
type UriPart = URIPart

// ParseUriSpec is the former name of ParseURISpec.
//
// Deprecated: use ParseURISpec.
func ParseUriSpec(spec string) (*URISpec, error) { return ParseURISpec(spec) }
