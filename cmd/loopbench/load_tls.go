package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/loopbench/loopbench/internal/harness/load"
)

// loadTLS is load's TLS: its flags and the line the output carries.
type loadTLS struct {
	on, insecure bool
	ca, name     string
}

func addLoadTLSFlags(fs *flag.FlagSet) *loadTLS {
	t := &loadTLS{}
	fs.BoolVar(&t.on, "tls", false, "connect over TLS 1.3 (X25519), each connection's handshake made on the generator's loop before its first request")
	fs.BoolVar(&t.insecure, "insecure", false, "with -tls: do not verify the server's certificate (serve -tls's throwaway one); the output says so")
	fs.StringVar(&t.ca, "ca", "", "with -tls: trust the certificates in this PEM file (default: the system's)")
	fs.StringVar(&t.name, "servername", "", "with -tls: the name sent and verified (default: the host of -addr)")
	return t
}

// apply makes f's runs dial over TLS and sets the line the output
// carries (a configuration line in benchfmt); the label says TLS too, so
// that TLS and plain-text runs never merge.
func (t *loadTLS) apply(f *loadFlags) error {
	line, err := t.dial(&f.cfg)
	f.tlsLine = line
	return err
}

// dial sets cfg's Dial to a TLS one and returns the line that says how.
func (t *loadTLS) dial(cfg *load.Config) (string, error) {
	if !t.on {
		if t.insecure || t.ca != "" || t.name != "" {
			return "", usageError{"-insecure, -ca and -servername need -tls"}
		}
		return "", nil
	}
	name := t.name
	if name == "" {
		name, _, _ = net.SplitHostPort(cfg.Addr)
	}
	config := &tls.Config{ServerName: name, MinVersion: tls.VersionTLS13, CurvePreferences: []tls.CurveID{tls.X25519}, InsecureSkipVerify: t.insecure}
	if t.ca != "" {
		pem, err := os.ReadFile(t.ca)
		if err != nil {
			return "", usageError{fmt.Sprintf("-ca: %v", err)}
		}
		config.RootCAs = x509.NewCertPool()
		if !config.RootCAs.AppendCertsFromPEM(pem) {
			return "", usageError{fmt.Sprintf("-ca %s: no PEM certificate in it", t.ca)}
		}
	}
	cfg.TLS = config // the generator's loops handshake it, within -timeout
	line := "tls: TLS 1.3, X25519, certificate verified for " + name
	label := "tls:"
	if t.insecure {
		line = "tls: TLS 1.3, X25519, certificate NOT verified (-insecure)"
		label = "tls-insecure:"
	}
	if cfg.Label == "" {
		cfg.Label = label + cfg.Addr
	}
	return line, nil
}

// tlsFailure names a failed TLS handshake in err: a certificate that was
// not verified, with the flags that would accept it, or any other
// handshake failure. Other errors are returned as they are.
func tlsFailure(f loadFlags, err error) error {
	if f.cfg.TLS == nil || err == nil {
		return err
	}
	var cv *tls.CertificateVerificationError
	if errors.As(err, &cv) {
		return fmt.Errorf("tls: the handshake with %s failed: the server's certificate was not verified (%v): trust its CA with -ca FILE, or skip verification with -insecure", f.cfg.Addr, cv.Err)
	}
	var alert tls.AlertError
	var header tls.RecordHeaderError
	if errors.As(err, &alert) || errors.As(err, &header) {
		return fmt.Errorf("tls: the handshake with %s failed: %v", f.cfg.Addr, err)
	}
	return err
}

// writeTLSLine states how a -tls run connected, ahead of its results,
// once a handshake (verified, without -insecure) succeeded: on stdout (a
// configuration line in benchfmt), or on stderr for JSON.
func writeTLSLine(f loadFlags, stdout, stderr io.Writer) {
	if f.tlsLine == "" {
		return
	}
	if f.format == "json" {
		stdout = stderr
	}
	fmt.Fprintln(stdout, f.tlsLine)
}
