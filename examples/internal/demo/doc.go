// Package demo holds the runnable demonstrations behind the programs in
// examples/: each one sets up a scene on a ZooKeeper ensemble, narrates what
// happens in plain lines, checks the promise the recipe makes and returns an
// error matching ErrInvariant when that promise was broken.
//
// The programs under examples/ and the tour call these functions, so a demo
// runs the same way alone, in the tour and in its test.
package demo
