// Package demo holds what the programs under examples/ share and what is not
// their lesson: finding the ensemble (ZK_CONNECT or an embedded ZooKeeper)
// and running a program with a bounded time (Main), a namespace per run
// (Stage), time-stamped narration (Printer), the staging of contenders
// (Lineup) and of buyers (RunBuyers), a storage that checks fencing tokens
// (FencedStore), and the checks of each demo's promise (Verdict, Section,
// CheckFair, CheckSale, CheckTenures), which report a broken promise as an
// error matching ErrInvariant.
//
// The zkcurator calls themselves (NewClient, the recipe, Acquire, Lost,
// FencingToken, Release, Close) are in each example's own package, so that a
// reader of examples/<name> sees them in the order a user writes them.
package demo
