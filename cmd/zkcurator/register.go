package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/discovery"
)

// envInstanceID names the registered instance's id in the command's
// environment.
const envInstanceID = "ZKCURATOR_INSTANCE_ID"

var registerCommand = &command{
	name:     "register",
	synopsis: "[flags] NAME --address HOST --port N [--] COMMAND [ARGS...]",
	summary:  "run a command while it is registered as an instance of a service",
	help: `Registers a DYNAMIC instance of the service NAME under --base, in the
format of Curator's ServiceDiscovery (so Java services using Curator or
Spring Cloud Zookeeper find it), runs COMMAND, and unregisters the instance
when COMMAND exits, exiting with its status. The registration is made again
if the session expires while COMMAND runs. COMMAND gets ZKCURATOR_INSTANCE_ID
(the instance id), ZKCURATOR_LOCK_NODE (the instance's node) and
ZKCURATOR_FENCING_TOKEN (the node's czxid when registered) in its
environment. --payload is stored as the instance's payload as given (a JSON
value); --payload-class adds the Java class a Java reader needs, as
Jackson's "@class". Signals are handled as by 'zkcurator lock'.`,
	positional:  1,
	runsCommand: true,
	setup: func(fs *flag.FlagSet, conn *connFlags) func(context.Context, io.Writer, []string) error {
		var f holdFlags
		f.add(fs, false)
		fs.Lookup("wait").Usage = "give up (status 75) when the registration is not made within this `duration`, connecting included (status 69 when ZooKeeper was not reached by then) (default: wait for as long as it takes)"
		base := fs.String("base", defaultBase, "the discovery base `path` the services live under")
		address := fs.String("address", "", "the instance's `HOST` address (required)")
		port := fs.Int("port", -1, "the instance's port `N` (required)")
		sslPort := fs.Int("ssl-port", -1, "the instance's SSL port `N` (default: none)")
		id := fs.String("id", "", "the instance `ID` (default: a random UUID, as Curator's builder)")
		payload := fs.String("payload", "", "the instance's payload, a `JSON` value (default: null)")
		payloadClass := fs.String("payload-class", "", "the Java `class` of the payload, written as its \"@class\"")
		uriSpec := fs.String("uri-spec", "", "the instance's URI template, such as {scheme}://{address}:{port} (`spec`)")
		return func(ctx context.Context, _ io.Writer, args []string) error {
			name := args[0]
			err := checkServiceArgs(*base, name)
			var inst discovery.ServiceInstance[json.RawMessage]
			if err == nil {
				inst, err = instanceFromFlags(name, *address, *port, *sslPort, *id, *payload, *payloadClass, *uriSpec)
			}
			if err != nil {
				return fail(exitUsage, "register: %v", err)
			}
			what := "registration of " + name + "/" + inst.ID
			return runUnder(ctx, conn, &f, what, args[1:], func(ctx context.Context, c *framework.Client, wait optionalDuration) (hold, func(context.Context) error, error) {
				return registerInstance(ctx, c, *base, inst, wait)
			})
		}
	},
}

// instanceFromFlags builds the instance the flags describe, checking them.
func instanceFromFlags(name, address string, port, sslPort int, id, payload, payloadClass, uriSpec string) (discovery.ServiceInstance[json.RawMessage], error) {
	if address == "" {
		return discovery.ServiceInstance[json.RawMessage]{}, fmt.Errorf("missing --address HOST")
	}
	if port < 0 || port > 65535 {
		return discovery.ServiceInstance[json.RawMessage]{}, fmt.Errorf("missing or bad --port %d: want 0..65535", port)
	}
	inst := discovery.NewServiceInstance[json.RawMessage](name, address, port)
	if id != "" {
		if err := checkServiceArgs(defaultBase, id); err != nil {
			return inst, fmt.Errorf("bad --id %q: an instance id is one node name", id)
		}
		inst.ID = id
	}
	if sslPort < -1 || sslPort > 65535 {
		return inst, fmt.Errorf("bad --ssl-port %d: want 0..65535", sslPort)
	}
	if sslPort >= 0 {
		inst.SSLPort = &sslPort
	}
	if payload != "" {
		if !json.Valid([]byte(payload)) {
			return inst, fmt.Errorf("bad --payload %q: not a JSON value", payload)
		}
		raw := json.RawMessage(payload)
		inst.Payload = &raw
	}
	inst.PayloadClass = payloadClass
	if uriSpec != "" {
		u, err := discovery.ParseURISpec(uriSpec)
		if err != nil {
			return inst, fmt.Errorf("bad --uri-spec: %v", err)
		}
		inst.URISpec = u
	}
	return inst, nil
}

// registerInstance registers inst and returns the registration as a hold
// and the discovery's Close (which unregisters it) as its release; a nil
// release when wait elapsed first.
func registerInstance(ctx context.Context, c *framework.Client, base string, inst discovery.ServiceInstance[json.RawMessage], wait optionalDuration) (hold, func(context.Context) error, error) {
	d, err := discovery.NewServiceDiscovery[json.RawMessage](c, base)
	if err != nil {
		return hold{}, nil, err
	}
	if err := d.Start(); err != nil {
		return hold{}, nil, err
	}
	rctx, cancel := ctx, context.CancelFunc(func() {})
	if wait.set {
		rctx, cancel = context.WithTimeout(ctx, wait.d)
	}
	defer cancel()
	err = d.RegisterService(rctx, inst)
	if err != nil {
		closeCtx, done := context.WithTimeout(context.WithoutCancel(ctx), leaveTimeout)
		defer done()
		_ = d.Close(closeCtx)
		if wait.set && rctx.Err() != nil && ctx.Err() == nil {
			return hold{}, nil, nil // the wait elapsed
		}
		return hold{}, nil, err
	}
	node := framework.JoinPath(framework.JoinPath(base, inst.Name), inst.ID)
	h := hold{node: node, env: []string{envInstanceID + "=" + inst.ID}}
	stat, err := c.Exists(ctx, node)
	switch {
	case err != nil:
		h.tokenErr = err
	case stat != nil:
		h.token = stat.Czxid
	}
	return h, d.Close, nil
}
