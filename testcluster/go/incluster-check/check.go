// incluster-check does what in-cluster clients (client-go's rest.InClusterConfig, fabric8) do: it reads
// KUBERNETES_SERVICE_HOST/PORT and the projected service-account files, verifies the API server's
// certificate against the mounted ca.crt only (no InsecureSkipVerify), and lists the pods of its own
// namespace with the token, once through the service's environment variables and once through the DNS
// name kubernetes.default.svc. It retries for a while (DNS, kube-proxy rules) and exits 1 on failure.
// Standard library only, so the static binary is small (testcluster/incluster-check-image).
package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

const saDir = "/var/run/secrets/kubernetes.io/serviceaccount"

func main() {
	os.Exit(run())
}

func run() int {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		fmt.Println("FAIL: KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT are not set")
		return 1
	}
	token, err := os.ReadFile(saDir + "/token")
	if err != nil {
		fmt.Println("FAIL: no token:", err)
		return 1
	}
	caPEM, err := os.ReadFile(saDir + "/ca.crt")
	if err != nil {
		fmt.Println("FAIL: no ca.crt:", err)
		return 1
	}
	ns, err := os.ReadFile(saDir + "/namespace")
	if err != nil {
		fmt.Println("FAIL: no namespace file:", err)
		return 1
	}
	namespace := strings.TrimSpace(string(ns))
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		fmt.Println("FAIL: ca.crt holds no PEM certificate")
		return 1
	}
	fmt.Printf("env KUBERNETES_SERVICE_HOST=%s KUBERNETES_SERVICE_PORT=%s; token %d bytes, ca.crt %d bytes, namespace %s\n",
		host, port, len(token), len(caPEM), namespace)
	client := &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}},
	}
	// kubernetes.default.svc is not fully qualified: the resolver applies the pod's search list
	// (namespace.svc.cluster.local, svc.cluster.local, cluster.local) and asks the cluster DNS.
	var addrs []string
	for attempt := 1; attempt <= 30; attempt++ {
		if addrs, err = net.LookupHost("kubernetes.default.svc"); err == nil {
			break
		}
		time.Sleep(time.Second)
	}
	if err != nil {
		fmt.Println("FAIL: DNS lookup of kubernetes.default.svc:", err)
		return 1
	}
	fmt.Printf("DNS: kubernetes.default.svc -> %s\n", strings.Join(addrs, " "))
	targets := []string{
		"https://" + net.JoinHostPort(host, port),
		"https://kubernetes.default.svc",
	}
	failed := 0
	for _, base := range targets {
		if err := listPods(client, base, namespace, strings.TrimSpace(string(token))); err != nil {
			fmt.Printf("FAIL: %s: %v\n", base, err)
			failed++
		}
	}
	if failed > 0 {
		return 1
	}
	fmt.Println("OK: the API server answered through the kubernetes Service, TLS verified against the mounted ca.crt")
	return 0
}

func listPods(client *http.Client, base, namespace, token string) error {
	url := base + "/api/v1/namespaces/" + namespace + "/pods"
	var last error
	for attempt := 1; attempt <= 30; attempt++ {
		if attempt > 1 {
			time.Sleep(time.Second)
		}
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			last = err
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			// an authorization answer is final: the connection and TLS worked
			return fmt.Errorf("GET %s: %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
		}
		var list struct {
			Items []struct {
				Metadata struct{ Name string } `json:"metadata"`
			} `json:"items"`
		}
		if err := json.Unmarshal(body, &list); err != nil {
			return fmt.Errorf("GET %s: not a pod list: %v", url, err)
		}
		names := make([]string, 0, len(list.Items))
		for _, p := range list.Items {
			names = append(names, p.Metadata.Name)
		}
		state := resp.TLS
		fmt.Printf("%s: GET /api/v1/namespaces/%s/pods -> %s, %d pods [%s]; server certificate %q verified (attempt %d)\n",
			base, namespace, resp.Status, len(names), strings.Join(names, " "), state.PeerCertificates[0].Subject.CommonName, attempt)
		return nil
	}
	return last
}
