package protection_test

import (
	"fmt"

	"github.com/zkcurator/zkcurator/protection"
)

// A protected create names its node with a fresh id, and finds it again by
// that id after a connection loss.
func ExampleName() {
	id := protection.NewID()
	name := protection.Name(id, "lock-")
	fmt.Println(len(id), name == "_c_"+id+"-lock-")

	// ZooKeeper appended the sequence; the id finds the node among its siblings.
	children := []string{"_c_6e40613b-7c1a-4f32-9e9e-dafd8ca3e1e1-lock-0000000006", name + "0000000007"}
	mine, ok := protection.Find(children, id)
	fmt.Println(ok, mine == name+"0000000007")
	// Output:
	// 36 true
	// true true
}

func ExampleIsProtected() {
	fmt.Println(protection.IsProtected("_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000007"))
	fmt.Println(protection.IsProtected("lock-0000000007"))
	// go-zookeeper's CreateProtectedEphemeralSequential format is not Curator's.
	fmt.Println(protection.IsProtected("_c_53345f9894234e0ca7b59f819e3ec2e1-lock-0000000007"))
	// Output:
	// true
	// false
	// false
}

func ExampleID() {
	id, ok := protection.ID("_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000007")
	fmt.Println(id, ok)
	// Output:
	// 53345f98-9423-4e0c-a7b5-9f819e3ec2e1 true
}

func ExampleStrip() {
	fmt.Println(protection.Strip("_c_1c38a25d-f7df-446f-9ee2-ee3c7d5f4264-__READ__0000000003"))
	fmt.Println(protection.Strip("lock-0000000001"))
	// Output:
	// __READ__0000000003
	// lock-0000000001
}

func ExampleFind() {
	children := []string{
		"_c_01d6bea1-2b4e-46f0-b656-bbe410d3dedf-lease-0000000011",
		"_c_ece77f52-4f34-4fc8-bc5b-7c02c99596b7-lease-0000000012",
	}
	fmt.Println(protection.Find(children, "ece77f52-4f34-4fc8-bc5b-7c02c99596b7"))
	fmt.Println(protection.Find(children, "53345f98-9423-4e0c-a7b5-9f819e3ec2e1"))
	// Output:
	// _c_ece77f52-4f34-4fc8-bc5b-7c02c99596b7-lease-0000000012 true
	//  false
}

func ExampleSequence() {
	for _, name := range []string{
		"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000007",
		"lock--000000001", // after the parent's counter wrapped
		"lock-",
	} {
		seq, err := protection.Sequence(name)
		fmt.Println(seq, err)
	}
	// Output:
	// 7 <nil>
	// -1 <nil>
	// 0 protection: no sequence suffix: "lock-" is shorter than 10 characters
}
