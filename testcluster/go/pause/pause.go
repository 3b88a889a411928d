// Command pause is the sandbox ("infra") container of real test nodes (testcluster/start-node): it
// holds the pod's namespaces, reaps orphaned children (it is PID 1 when the pod shares its PID
// namespace) and exits 0 on SIGINT or SIGTERM. Static, no dependencies, like registry.k8s.io/pause.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "-v" || os.Args[1] == "--version") {
		fmt.Println("pause (sharegpu testcluster)")
		return
	}
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s == syscall.SIGCHLD {
			for {
				var status syscall.WaitStatus
				pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
			continue
		}
		os.Exit(0)
	}
}
