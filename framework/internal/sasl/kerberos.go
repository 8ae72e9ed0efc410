package sasl

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/types"
)

// Kerberos is where a GSSAPI client's credentials come from: a keytab,
// or else a credentials cache that kinit filled.
type Kerberos struct {
	Principal string // name or name@REALM; with a cache and no keytab, empty means the cache's
	Keytab    string // a keytab file; empty: use CCache
	CCache    string // a credentials cache file ("FILE:" prefix allowed)
	Config    string // the krb5.conf file
}

// NewGSSAPI obtains a service ticket for service/host in the realm
// krb5.conf maps host to (its default realm unless domain_realm says
// otherwise), logging in from the keytab or reading the cache, and returns
// a GSSAPI client presenting it. Its errors match the sentinels of
// errors.go; none holds a key. ctx bounds the whole call, and the KDC
// requests end with it (kdc_relay.go).
func (k Kerberos) NewGSSAPI(ctx context.Context, service, host string) (*GSSAPI, error) {
	type result struct {
		g   *GSSAPI
		err error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the KDC requests of a call that returns on ctx
	done := make(chan result, 1)
	go func() {
		g, err := k.newGSSAPI(ctx, service, host)
		done <- result{g, err}
	}()
	select {
	case r := <-done:
		return r.g, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (k Kerberos) newGSSAPI(ctx context.Context, service, host string) (*GSSAPI, error) {
	cfg, err := parseSafely(func() (*config.Config, error) { return config.Load(k.Config) })
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrKerberosConfig, k.Config, err)
	}
	var cl *client.Client
	if k.Keytab != "" {
		cl, err = k.keytabClient(cfg)
	} else {
		cl, err = k.cacheClient(cfg)
	}
	if err != nil {
		return nil, err
	}
	defer cl.Destroy() // stops the renewal of the TGT of a keytab login
	relay, err := relayKDCs(ctx, cl.Config, cl.Credentials.Realm())
	if err != nil {
		return nil, fmt.Errorf("%w: relaying to the KDC: %v", ErrKDCUnreachable, err)
	}
	defer relay.stop()
	if k.Keytab != "" {
		if err := cl.Login(); err != nil {
			return nil, classify(err, "logging in as "+k.principalName(cl))
		}
	}
	spn := service + "/" + host
	tkt, key, err := cl.GetServiceTicket(spn)
	if err != nil {
		return nil, classify(err, "getting a ticket for "+spn+" as "+k.principalName(cl))
	}
	return NewGSSAPI(tkt, key, cl.Credentials.CName(), cl.Credentials.Realm()), nil
}

func (k Kerberos) principalName(cl *client.Client) string {
	return cl.Credentials.CName().PrincipalNameString() + "@" + cl.Credentials.Realm()
}

// splitPrincipal splits name@REALM; a name without a realm is in
// defaultRealm.
func splitPrincipal(p, defaultRealm string) (types.PrincipalName, string) {
	realm := defaultRealm
	if i := strings.LastIndexByte(p, '@'); i >= 0 {
		p, realm = p[:i], p[i+1:]
	}
	return types.NewPrincipalName(nametype.KRB_NT_PRINCIPAL, p), realm
}

// keytabClient returns a client that logs in with the principal's key in
// the keytab, checking first that the keytab holds one.
func (k Kerberos) keytabClient(cfg *config.Config) (*client.Client, error) {
	kt, err := parseSafely(func() (*keytab.Keytab, error) { return keytab.Load(k.Keytab) })
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("%w: %v", ErrKeytab, err) // names the file
		}
		// Not gokrb5's words: some print the file's bytes, keys and all.
		return nil, fmt.Errorf("%w: %s is not a keytab gokrb5 can read (malformed or cut short)", ErrKeytab, k.Keytab)
	}
	name, realm := splitPrincipal(k.Principal, cfg.LibDefaults.DefaultRealm)
	if realm == "" {
		return nil, fmt.Errorf("%w: principal %q names no realm and %s has no default_realm", ErrKerberosConfig, k.Principal, k.Config)
	}
	if !keytabHolds(kt, name, realm) {
		return nil, fmt.Errorf("%w: %s holds no key of %s@%s", ErrKeytab, k.Keytab, name.PrincipalNameString(), realm)
	}
	return client.NewWithKeytab(name.PrincipalNameString(), realm, kt, cfg, client.DisablePAFXFAST(true)), nil
}

func keytabHolds(kt *keytab.Keytab, name types.PrincipalName, realm string) bool {
	for _, e := range kt.Entries {
		if e.Principal.Realm == realm && strings.Join(e.Principal.Components, "/") == name.PrincipalNameString() {
			return true
		}
	}
	return false
}

// cacheClient returns a client with the cache's TGT, checking first that
// the cache holds an unexpired TGT of the principal.
func (k Kerberos) cacheClient(cfg *config.Config) (*client.Client, error) {
	path := strings.TrimPrefix(k.CCache, "FILE:")
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w: no credentials cache %s (run kinit, or give a keytab): %v", ErrNoTicket, path, err)
	}
	cc, err := parseSafely(func() (*credentials.CCache, error) { return credentials.LoadCCache(path) })
	if err != nil {
		return nil, fmt.Errorf("%w: credentials cache %s: %v", ErrNoTicket, path, err)
	}
	realm := cc.GetClientRealm()
	have := cc.GetClientPrincipalName().PrincipalNameString() + "@" + realm
	if k.Principal != "" {
		name, r := splitPrincipal(k.Principal, cfg.LibDefaults.DefaultRealm)
		if want := name.PrincipalNameString() + "@" + r; want != have {
			return nil, fmt.Errorf("%w: credentials cache %s is %s's, not %s's", ErrNoTicket, path, have, want)
		}
	}
	tgt, ok := cc.GetEntry(types.NewPrincipalName(nametype.KRB_NT_SRV_INST, "krbtgt/"+realm))
	if !ok {
		return nil, fmt.Errorf("%w: credentials cache %s holds no ticket-granting ticket of %s", ErrNoTicket, path, have)
	}
	if now := time.Now(); !now.Before(tgt.EndTime) {
		return nil, fmt.Errorf("%w: the ticket-granting ticket of %s in %s expired at %s (run kinit)",
			ErrNoTicket, have, path, tgt.EndTime.UTC().Format(time.RFC3339))
	}
	cl, err := client.NewFromCCache(cc, cfg, client.DisablePAFXFAST(true))
	if err != nil {
		return nil, fmt.Errorf("%w: credentials cache %s: %v", ErrNoTicket, path, err)
	}
	return cl, nil
}

// errMalformed is what parseSafely returns for a file gokrb5's parser
// panicked on.
var errMalformed = errors.New("malformed or cut short")

// parseSafely runs load, a gokrb5 parse of a file, turning its panic into
// errMalformed: gokrb5 indexes past the end of a short credentials cache
// (an empty one, as a kinit cut short leaves) and of some malformed
// krb5.conf files, which would end the process.
func parseSafely[T any](load func() (T, error)) (v T, err error) {
	defer func() {
		if recover() != nil {
			err = errMalformed
		}
	}()
	return load()
}
