package campaign

import (
	"strings"
	"testing"
)

func TestTreeDiffNamesWhatOnlyOneMemberHas(t *testing.T) {
	same := []string{"/a=1", "/b=2"}
	if d := treeDiff(same, same); d != "" {
		t.Errorf("equal trees differ: %q", d)
	}
	d := treeDiff([]string{"/a=1", "/b=2", "/c=3"}, []string{"/a=1", "/b=9", "/c=3"})
	for _, want := range []string{"only the first has /b=2", "only the second has /b=9"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff %q does not say %q", d, want)
		}
	}
	if d := treeDiff(nil, []string{"/1", "/2", "/3", "/4"}); strings.Count(d, "only") != 3 {
		t.Errorf("diff %q names other than three entries", d)
	}
}

func TestCheckReplicasVoidsADivergedRun(t *testing.T) {
	var agreed Verdict
	checkReplicas(&agreed, endState{})
	if agreed.Diverged || !agreed.OK() {
		t.Errorf("members that agree: %+v", agreed)
	}
	var v Verdict
	checkReplicas(&v, endState{Replicas: []string{"member 0 (3 nodes) against member 1 (2 nodes): only the first has /x=1"}})
	if !v.Diverged || v.OK() || !strings.Contains(v.Violations[0], "only the first has /x=1") {
		t.Errorf("diverged members: %+v", v)
	}
}

// A run whose members reported their own inconsistency is void only when it
// has violations: the alarm explains them, and changes nothing in a clean run.
func TestCheckReplicasVoidsAnAlarmedRunWithViolations(t *testing.T) {
	alarm := endState{Alarms: []string{`member 0 logged 3 line(s) like "Digests are not matching"`}}
	var clean Verdict
	checkReplicas(&clean, alarm)
	if clean.Diverged || !clean.OK() {
		t.Errorf("an alarmed run without violations: %+v", clean)
	}
	var v Verdict
	v.violate("long: two applied increments both wrote 7")
	checkReplicas(&v, alarm)
	if !v.Diverged || v.OK() || !strings.Contains(v.Violations[len(v.Violations)-1], "Digests are not matching") {
		t.Errorf("an alarmed run with violations: %+v", v)
	}
	var quiet Verdict
	quiet.violate("long: two applied increments both wrote 7")
	checkReplicas(&quiet, endState{})
	if quiet.Diverged {
		t.Errorf("a run with violations and no alarm was voided: %+v", quiet)
	}
}

// The alarms are read from the lines ZooKeeper 3.8.0 logged in a run that
// lost acknowledged writes; other lines with some of the words raise none.
func TestAlarmsInReadsZooKeepersOwnConsistencyWarnings(t *testing.T) {
	log := `21:02:11.101 [QuorumPeer] WARN org.apache.zookeeper.server.DataTree - [1472 times] Message: Digests are not matching. Value is Zxid. Last value:34359740233
21:02:12.300 [SyncThread:2] WARN org.apache.zookeeper.server.persistence.FileTxnLog - Current zxid 34359760113 is <= 34359760135 for setData
21:02:12.301 [SyncThread:2] WARN org.apache.zookeeper.server.persistence.FileTxnLog - Current zxid 34359760114 is <= 34359760135 for setData
21:02:13.000 [main] INFO org.apache.zookeeper.server.Other - a value is <= its bound
`
	got := alarmsIn(2, log)
	if len(got) != 2 || !strings.Contains(got[0], "member 2 logged 1 line(s)") || !strings.Contains(got[0], "Digests are not matching") ||
		!strings.Contains(got[1], "member 2 logged 2 line(s)") || !strings.Contains(got[1], "FileTxnLog") {
		t.Errorf("alarms = %q, want the digest line once and the two FileTxnLog lines", got)
	}
	if got := alarmsIn(0, "INFO org.apache.zookeeper.server.Other - a value is <= its bound\n"); got != nil {
		t.Errorf("alarms of a quiet log = %q, want none", got)
	}
}

// An ensemble that served an earlier campaign keeps that campaign's lines
// in its members' logs: an alarm raised then must not void this run, and
// one raised during this run must.
func TestAlarmsOfAnEarlierRunDoNotVoidThisOne(t *testing.T) {
	earlier := "WARN org.apache.zookeeper.server.DataTree - Message: Digests are not matching. Value is Zxid. Last value:1\nINFO a line of the earlier run"
	mark := len(logLines(earlier))
	quiet := earlier + "\nINFO a line of this run"
	if got := alarmsIn(0, logAfter(quiet, mark)); got != nil {
		t.Errorf("alarms of this run = %q; want none, the alarm was the earlier run's", got)
	}
	alarmed := quiet + "\nWARN org.apache.zookeeper.server.persistence.FileTxnLog - Current zxid 9 is <= 12 for setData"
	if got := alarmsIn(0, logAfter(alarmed, mark)); len(got) != 1 || !strings.Contains(got[0], "FileTxnLog") {
		t.Errorf("alarms of this run = %q; want its FileTxnLog line alone", got)
	}
	if got := logAfter("", 3); got != "" || len(logLines("")) != 0 {
		t.Errorf("an empty log: after = %q, lines %d", got, len(logLines("")))
	}
}

// A void run's summary line says so, so that a reader of the output can
// tell it from a failed one and from the run that replaced it.
func TestSummaryMarksAVoidRun(t *testing.T) {
	var v Verdict
	v.violate("overlap: c0#1 and c1#2")
	failed := &Report{Kind: MutexLock, Verdict: v}
	if s := failed.Summary(); !strings.Contains(s, " ok=false lock=") {
		t.Errorf("a failed run's summary %q", s)
	}
	checkReplicas(&v, endState{Alarms: []string{`member 0 logged 1 line(s) like "Digests are not matching"`}})
	void := &Report{Kind: MutexLock, Verdict: v}
	if s := void.Summary(); !strings.Contains(s, " ok=false void=true lock=") {
		t.Errorf("a void run's summary %q does not say void=true", s)
	}
}
