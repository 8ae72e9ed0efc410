package queue

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Node names, as Curator 5.4 writes them. Every item is a
// PERSISTENT_SEQUENTIAL child of the queue path whose name starts with
// itemPrefix and ends with the server's 10-digit sequence number:
//
//	DistributedQueue          queue-0000000007
//	DistributedIDQueue        queue-|<id>|0000000007          ('/' and '|' in the id become '_')
//	DistributedPriorityQueue  queue-1000000050000000007       ("1" or "0" for the sign, 8 hex digits, the sequence)
//	DistributedDelayQueue     queue-|18C2A4B1F00|0000000007   (the due time, epoch ms in upper-case hex)
//
// A child that does not start with itemPrefix is foreign: consumers skip it.
const (
	itemPrefix   = "queue-"
	idSeparator  = '|'
	sequenceLen  = 10
	simplePrefix = "qn-"
)

// naming is what tells the queue types apart: the order in which a consumer
// takes items, and when an item is due.
type naming struct {
	less func(a, b string) bool
	// due returns when the item may be taken; the zero time means now.
	due func(name string) time.Time
	// refresh makes the consumer list again as soon as the children changed
	// after an item, so that a new item that sorts first is taken next
	// (Curator's refreshOnWatch, set for the priority and delay queues).
	refresh bool
}

func noDue(string) time.Time { return time.Time{} }

func plainLess(a, b string) bool { return a < b }

var (
	fifoNaming     = naming{less: plainLess, due: noDue}
	priorityNaming = naming{less: plainLess, due: noDue, refresh: true}
	idNaming       = naming{less: idLess, due: noDue}
	delayNaming    = naming{less: delayLess, due: delayDue, refresh: true}
)

// sortItems returns the item children of names (foreign ones left out) in
// the order a consumer takes them.
func (n naming) sortItems(names []string) []string {
	items := make([]string, 0, len(names))
	for _, name := range names {
		if strings.HasPrefix(name, itemPrefix) {
			items = append(items, name)
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return n.less(items[i], items[j]) })
	return items
}

// requeuePrefix is the name a requeued item is created under: its own name
// without the sequence, so that it keeps its id, priority or due time.
func requeuePrefix(name string) string {
	if len(name) > len(itemPrefix)+sequenceLen-1 && strings.HasPrefix(name, itemPrefix) {
		return name[:len(name)-sequenceLen]
	}
	return itemPrefix
}

// fixID is Curator's DistributedIdQueue.fixId: '/' and '|' become '_'.
func fixID(id string) string {
	return strings.NewReplacer("/", "_", string(idSeparator), "_").Replace(id)
}

func idPrefix(id string) string {
	return itemPrefix + string(idSeparator) + fixID(id) + string(idSeparator)
}

// parseID splits an id queue's node name into its id and the name without
// it; a name without two separators is its own id, as in Curator.
func parseID(name string) (id, cleaned string) {
	first := strings.IndexByte(name, idSeparator)
	if first < 0 {
		return name, name
	}
	second := strings.IndexByte(name[first+1:], idSeparator)
	if second < 0 {
		return name, name
	}
	second += first + 1
	return name[first+1 : second], name[:first] + name[second+1:]
}

func idLess(a, b string) bool {
	_, ca := parseID(a)
	_, cb := parseID(b)
	return ca < cb
}

// priorityPrefix is Curator's priorityToString: "1" for a priority >= 0,
// "0" for a negative one, then the priority as 8 upper-case hex digits of
// its 32-bit two's complement, so that names sort by priority.
func priorityPrefix(priority int32) string {
	sign := "1"
	if priority < 0 {
		sign = "0"
	}
	return fmt.Sprintf("%s%s%08X", itemPrefix, sign, uint32(priority))
}

// delayPrefix is Curator's epochToString: the due time in epoch
// milliseconds as upper-case hex (at least 8 digits) between separators.
func delayPrefix(epochMillis int64) string {
	return fmt.Sprintf("%s%c%08X%c", itemPrefix, idSeparator, epochMillis, idSeparator)
}

// delayEpoch is Curator's getEpoch: the hex between the last two
// separators, or 0 (due at once) when there is none.
func delayEpoch(name string) int64 {
	i2 := strings.LastIndexByte(name, idSeparator)
	if i2 <= 0 {
		return 0
	}
	i1 := strings.LastIndexByte(name[:i2], idSeparator)
	if i1 <= 0 || i2 <= i1+1 {
		return 0
	}
	v, err := strconv.ParseInt(name[i1+1:i2], 16, 64)
	if err != nil {
		return 0
	}
	return v
}

func delayDue(name string) time.Time {
	if ms := delayEpoch(name); ms > 0 {
		return time.UnixMilli(ms)
	}
	return time.Time{}
}

func delayLess(a, b string) bool {
	ea, eb := delayEpoch(a), delayEpoch(b)
	if ea != eb {
		return ea < eb
	}
	return a[max(0, len(a)-sequenceLen):] < b[max(0, len(b)-sequenceLen):]
}
