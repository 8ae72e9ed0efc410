package discovery

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// ServiceInstance is one instance of a service, with Curator's fields. Its
// JSON (MarshalJSON, UnmarshalJSON) is the bytes Curator's default
// JsonInstanceSerializer writes and reads.
type ServiceInstance[T any] struct {
	Name    string
	ID      string
	Address string // written as null when empty
	Port    *int   // nil: null
	SSLPort *int   // nil: null
	// Payload is nil when the instance has none (null in the JSON).
	Payload *T
	// PayloadClass is the Java class of the payload, written as its "@class"
	// (or, for a payload that is not a JSON object, as Jackson's
	// [class, value] wrapper) so that a Java reader can build it; read from
	// the node when a Java writer put one there. A Java reader fails on a
	// payload whose class is not its own payload class, missing included,
	// and its queryForInstances fails for the whole service.
	PayloadClass string
	// RegistrationTimeUTC is the registration time in Unix milliseconds.
	RegistrationTimeUTC int64
	// ServiceType is empty only when the JSON said null; a missing field
	// reads as Dynamic.
	ServiceType ServiceType
	URISpec     *URISpec // nil: null
	// Enabled is written only when set, as Curator's serializer in its
	// non-compatible mode does; Curator's default (compatible) serializer
	// never writes it. A missing field reads as nil, which means enabled.
	Enabled *bool

	// UriSpec is the former name of URISpec: when set, it is written (and
	// built) in place of URISpec. A read fills only URISpec.
	//
	// Deprecated: use URISpec.
	UriSpec *URISpec
}

// NewServiceInstance returns a Dynamic instance of the service name at
// address:port with a random id (a UUID, as Curator's builder) and the
// current time as its registration time.
func NewServiceInstance[T any](name, address string, port int) ServiceInstance[T] {
	return ServiceInstance[T]{
		Name: name, ID: uuid.NewString(), Address: address, Port: &port,
		RegistrationTimeUTC: time.Now().UnixMilli(), ServiceType: Dynamic,
	}
}

// IsEnabled reports whether the instance is enabled: Enabled, true when
// absent.
func (i ServiceInstance[T]) IsEnabled() bool { return i.Enabled == nil || *i.Enabled }

// RegistrationTime is RegistrationTimeUTC as a time.
func (i ServiceInstance[T]) RegistrationTime() time.Time {
	return time.UnixMilli(i.RegistrationTimeUTC)
}

// BuildURI builds the instance's URISpec (empty when it has none) with the
// instance's fields as Curator's variables, vars overriding them.
func (i ServiceInstance[T]) BuildURI(vars map[string]any) string {
	u := i.uriSpec()
	if u == nil {
		return ""
	}
	return u.build(i.uriVariables(), vars)
}

// uriSpec is the spec the instance is written and built with: the
// deprecated UriSpec when set (only code written before URISpec sets it),
// else URISpec.
func (i ServiceInstance[T]) uriSpec() *URISpec {
	if i.UriSpec != nil {
		return i.UriSpec
	}
	return i.URISpec
}

// uriVariables are Curator's predefined URISpec fields for the instance.
func (i ServiceInstance[T]) uriVariables() map[string]any {
	v := map[string]any{
		FieldName: i.Name, FieldID: i.ID, FieldAddress: i.Address,
		FieldPort: intOrEmpty(i.Port), FieldSSLPort: intOrEmpty(i.SSLPort),
		FieldRegistrationTimeUTC: i.RegistrationTimeUTC,
		FieldServiceType:         strings.ToLower(string(i.ServiceType)),
	}
	if i.SSLPort != nil {
		v[FieldScheme] = "https"
	}
	return v
}

func intOrEmpty(p *int) any {
	if p == nil {
		return ""
	}
	return *p
}

// key identifies the instance among a service's instances.
func (i ServiceInstance[T]) key() string { return i.Name + "/" + i.ID }

// validate checks what registering the instance needs: a name and an id
// that are single path segments, a known service type and valid ports.
func (i ServiceInstance[T]) validate() error {
	if err := validName("instance name", i.Name); err != nil {
		return err
	}
	if err := validName("instance id", i.ID); err != nil {
		return err
	}
	for _, p := range []struct {
		what string
		v    *int
	}{{"port", i.Port}, {"ssl port", i.SSLPort}} {
		if p.v != nil && (*p.v < 0 || *p.v > 65535) {
			return fmt.Errorf("%w: instance %s %d is out of range 0..65535", ErrInvalidArgument, p.what, *p.v)
		}
	}
	if i.ServiceType == "" {
		return nil // registered as Dynamic
	}
	return i.ServiceType.validate()
}
