package main

import (
	"crypto/sha256"
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"

	"github.com/loopbench/loopbench/internal/harness/tlscert"
	"github.com/loopbench/loopbench/peers"
)

// serveTLS is serve's TLS: the flags, and once set up, the server's
// config, its certificate files (for a peer's server) and what the
// listening line says of it.
type serveTLS struct {
	on        bool
	cert, key string
	config    *tls.Config
	files     tlscert.Files
	note      string
	tmpDir    string
}

func addServeTLSFlags(fs *flag.FlagSet) *serveTLS {
	s := &serveTLS{}
	fs.BoolVar(&s.on, "tls", false, "serve TLS (protocol or stream style, gonet, asyncio, uvloop); with no -cert, a throwaway certificate (clients then need load -insecure)")
	fs.StringVar(&s.cert, "cert", "", "with -tls: the certificate chain, a PEM file")
	fs.StringVar(&s.key, "key", "", "with -tls: its private key, a PEM file")
	return s
}

// check reports a usage error in the TLS flags for the server chosen.
func (s *serveTLS) check(impl, style string) error {
	switch {
	case !s.on && (s.cert != "" || s.key != ""):
		return usageError{"-cert and -key need -tls"}
	case !s.on:
		return nil
	case (s.cert == "") != (s.key == ""):
		return usageError{"-tls: give both -cert and -key, or neither (a throwaway certificate)"}
	case impl == "" && style == "task":
		return usageError{"-tls: the task-style server has no TLS (protocol or stream style have)"}
	case impl != "" && impl != "gonet" && !slices.Contains(peers.TLSEchoServers, impl):
		return usageError{fmt.Sprintf("-tls: %s has no TLS echo server (gonet, %s have)", impl, strings.Join(peers.TLSEchoServers, ", "))}
	}
	return nil
}

// setup loads the certificate, or makes a throwaway one for localhost,
// 127.0.0.1 and hosts (written to a temporary directory, for a peer's
// server; cleanup removes it).
func (s *serveTLS) setup(hosts ...string) (cleanup func(), err error) {
	cleanup = func() {}
	if !s.on {
		return cleanup, nil
	}
	if s.cert != "" {
		cert, err := tls.LoadX509KeyPair(s.cert, s.key)
		if err != nil {
			return cleanup, fmt.Errorf("-cert %s -key %s: %w", s.cert, s.key, err)
		}
		s.config = &tls.Config{Certificates: []tls.Certificate{cert}}
		s.files = tlscert.Files{Cert: s.cert, Key: s.key}
		s.note = ", TLS"
		return cleanup, nil
	}
	names := []string{"localhost", "127.0.0.1"}
	for _, h := range hosts {
		if ip := net.ParseIP(h); h != "" && !slices.Contains(names, h) && (ip == nil || !ip.IsUnspecified()) {
			names = append(names, h)
		}
	}
	if s.tmpDir, err = os.MkdirTemp("", "loopbench-serve-tls-"); err != nil {
		return cleanup, err
	}
	cleanup = func() { os.RemoveAll(s.tmpDir) }
	_, cert, files, err := tlscert.Throwaway(s.tmpDir, "server", names...)
	if err != nil {
		return cleanup, err
	}
	s.files = files
	s.config = &tls.Config{Certificates: []tls.Certificate{cert}}
	s.note = fmt.Sprintf(", TLS with a throwaway certificate for %v, SHA-256 %x: clients need -insecure", names, sha256.Sum256(cert.Certificate[0]))
	return cleanup, nil
}
