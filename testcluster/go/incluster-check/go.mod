module sharegpu.io/testcluster/incluster-check

go 1.24.0
