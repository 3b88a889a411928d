module sharegpu.io/testcluster/pause

go 1.24.0
