package serve

import (
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"

	"github.com/loopbench/loopbench/internal/measure/tlscert"
	"github.com/loopbench/loopbench/peers"
)

// TLS is serve's TLS as its flags give it: On, and the certificate chain
// and its key in PEM files (neither: a throwaway certificate).
type TLS struct {
	On        bool
	Cert, Key string
}

// tlsSetup is TLS set up: the server's config (nil: plain text), its
// certificate files (for a peer's server) and what the listening line
// says of it.
type tlsSetup struct {
	config *tls.Config
	files  tlscert.Files
	note   string
}

// check checks the TLS flags for the server chosen.
func (t TLS) check(impl, style string) error {
	switch {
	case !t.On && (t.Cert != "" || t.Key != ""):
		return errors.New("-cert and -key need -tls")
	case !t.On:
		return nil
	case (t.Cert == "") != (t.Key == ""):
		return errors.New("-tls: give both -cert and -key, or neither (a throwaway certificate)")
	case impl == "" && style == "task":
		return errors.New("-tls: the task-style server has no TLS (protocol or stream style have)")
	case impl != "" && impl != "gonet" && !slices.Contains(peers.TLSEchoServers, impl):
		return fmt.Errorf("-tls: %s has no TLS echo server (gonet, %s have)", impl, strings.Join(peers.TLSEchoServers, ", "))
	}
	return nil
}

// setup loads the certificate, or makes a throwaway one for localhost,
// 127.0.0.1 and hosts (written to a temporary directory, for a peer's
// server; cleanup removes it).
func (t TLS) setup(hosts ...string) (s tlsSetup, cleanup func(), err error) {
	cleanup = func() {}
	if !t.On {
		return s, cleanup, nil
	}
	if t.Cert != "" {
		cert, err := tls.LoadX509KeyPair(t.Cert, t.Key)
		if err != nil {
			return s, cleanup, fmt.Errorf("-cert %s -key %s: %w", t.Cert, t.Key, err)
		}
		s = tlsSetup{config: &tls.Config{Certificates: []tls.Certificate{cert}}, files: tlscert.Files{Cert: t.Cert, Key: t.Key}, note: ", TLS"}
		return s, cleanup, nil
	}
	names := []string{"localhost", "127.0.0.1"}
	for _, h := range hosts {
		if ip := net.ParseIP(h); h != "" && !slices.Contains(names, h) && (ip == nil || !ip.IsUnspecified()) {
			names = append(names, h)
		}
	}
	dir, err := os.MkdirTemp("", "loopbench-serve-tls-")
	if err != nil {
		return s, cleanup, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	_, cert, files, err := tlscert.Throwaway(dir, "server", names...)
	if err != nil {
		return s, cleanup, err
	}
	s = tlsSetup{config: &tls.Config{Certificates: []tls.Certificate{cert}}, files: files,
		note: fmt.Sprintf(", TLS with a throwaway certificate for %v, SHA-256 %x: clients need -insecure", names, sha256.Sum256(cert.Certificate[0]))}
	return s, cleanup, nil
}
