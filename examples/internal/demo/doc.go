// Package demo holds what runs and checks the programs under examples/ from
// outside, for the tour and the tests: finding the ensemble (ZK_CONNECT or
// an embedded ZooKeeper) and running the tour with a bounded time (Main),
// building an example (Build), the README's quick start, and the test that
// every example builds without this package.
//
// No example's program imports it: each examples/<name> uses only the
// library, flag and the standard library, so that a reader can copy it into
// a project of their own.
package demo
