package zktest

import "time"

const (
	// restartMargin is how many times its slowest start so far a restart of a
	// server is assumed to take at worst: the load of a shared machine can
	// rise between the measured start and the restart.
	restartMargin = 4
	// redialPause is go-zookeeper's pause before it dials a lone server again,
	// plus the handshake that revalidates the session.
	redialPause = 1500 * time.Millisecond
)

// SessionOutlastingRestart returns a session timeout that outlasts a Stop and
// Restart of s on this machine: four times the slowest start of s so far plus
// the client's redial, or floor when that is longer. Tests whose sessions must
// survive a restart take their timeout from it rather than from a constant
// that a loaded machine's slow JVM start can exceed.
func (s *Server) SessionOutlastingRestart(floor time.Duration) time.Duration {
	return min(max(floor, restartMargin*s.SlowestStart()+redialPause), maxSessionTimeout)
}

// SlowestStart returns the longest time a start of s has taken so far, from
// launching the JVM until it served requests (or joined a quorum).
func (s *Server) SlowestStart() time.Duration {
	return time.Duration(s.slowestStart.Load())
}

// noteStart records how long a successful start took.
func (s *Server) noteStart(d time.Duration) {
	for {
		old := s.slowestStart.Load()
		if int64(d) <= old || s.slowestStart.CompareAndSwap(old, int64(d)) {
			return
		}
	}
}
