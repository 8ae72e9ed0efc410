module github.com/zkcurator/zkcurator/scripts/testreport

go 1.22
