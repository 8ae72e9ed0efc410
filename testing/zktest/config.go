package zktest

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Limits of a test server, in wall-clock time; converted to ticks.
const (
	maxSessionTimeout = 5 * time.Minute
	initLimit         = 5 * time.Second // a follower's time to connect to and sync with a leader
	syncLimit         = 2 * time.Second // a follower's time to answer the leader
	initLimitTicks    = 10              // the least initLimit, in ticks
	syncLimitTicks    = 5               // the least syncLimit, in ticks

	// The election's own timeouts (jvmArgs), and FastLeaderElection's
	// finalizeWait: how long a member waits for a better vote before it
	// settles on one.
	electionConnectTimeout  = time.Second // zookeeper.cnxTimeout: giving up on a peer that does not answer
	maxNotificationInterval = time.Second // between a looking member's rounds of notifications
	finalizeWait            = 200 * time.Millisecond
)

// ports are the loopback ports one ZooKeeper process listens on. Quorum and
// election ports are zero for a standalone server.
type ports struct {
	client, quorum, election int
	secure                   int // the secure client port of a server started WithTLS; 0 otherwise
}

// instance describes one ZooKeeper process: its configuration and where it
// keeps data.
type instance struct {
	cfg     serverConfig
	dataDir string
	ports   ports
	myID    int     // 1-based member id; 0 for a standalone server
	peers   []ports // the ports this member lists for each member, indexed by id-1 (its own, proxies to the others); nil for a standalone server

	keyStore string // the PEM key store of a server started WithTLS
	jaasFile string // the JAAS file of a server started WithSASLDigest
}

// zooCfg renders zoo.cfg.
func (in instance) zooCfg() string {
	tick := in.cfg.tickTime
	var b strings.Builder
	line := func(k string, v any) { fmt.Fprintf(&b, "%s=%v\n", k, v) }
	line("tickTime", tick.Milliseconds())
	line("minSessionTimeout", 2*tick.Milliseconds())
	line("maxSessionTimeout", max(20*tick, maxSessionTimeout).Milliseconds())
	line("dataDir", in.dataDir)
	line("clientPort", in.ports.client)
	line("clientPortAddress", "127.0.0.1")
	line("maxClientCnxns", 0)
	line("admin.enableServer", false)
	line("4lw.commands.whitelist", "*")
	line("forceSync", "no")
	line("preAllocSize", 1024) // KiB; the default 64 MiB is wasted on a test
	in.tlsLines(line)
	if in.peers != nil {
		line("initLimit", ticks(initLimit, tick, initLimitTicks))
		line("syncLimit", ticks(syncLimit, tick, syncLimitTicks))
		line("standaloneEnabled", false)
		for i, p := range in.peers {
			line("server."+strconv.Itoa(i+1), fmt.Sprintf("127.0.0.1:%d:%d", p.quorum, p.election))
		}
	}
	return b.String()
}

// ticks converts d to a number of ticks, at least floor.
func ticks(d, tick time.Duration, floor int64) int64 {
	return max(int64((d+tick-1)/tick), floor)
}

// jvmArgs are the java arguments that run QuorumPeerMain on configPath.
func (in instance) jvmArgs(classPath, configPath string) []string {
	args := []string{
		// A small, quick JVM: the server holds little data and lives briefly.
		"-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Xshare:auto", "-XX:-UsePerfData", "-Djava.net.preferIPv4Stack=true",
		"-Dorg.slf4j.simpleLogger.showDateTime=true",
		"-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
		"-Dznode.container.checkIntervalMs=" + strconv.FormatInt(in.cfg.containerCheckInterval.Milliseconds(), 10),
	}
	if in.cfg.extendedTypes {
		args = append(args, "-Dzookeeper.extendedTypesEnabled=true")
	}
	args = append(args, in.saslArgs()...)
	if in.peers != nil {
		args = append(args,
			// Fail at once on a taken election port (the start is then retried
			// on other ports), give up quickly on unreachable peers, and keep
			// re-sending election notifications at short intervals.
			"-Dzookeeper.electionPortBindRetry=1",
			"-Dzookeeper.cnxTimeout="+strconv.FormatInt(electionConnectTimeout.Milliseconds(), 10),
			"-Dzookeeper.fastleader.maxNotificationInterval="+strconv.FormatInt(maxNotificationInterval.Milliseconds(), 10),
		)
	}
	return append(args, "-cp", classPath, "org.apache.zookeeper.server.quorum.QuorumPeerMain", configPath)
}
