package load

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/loopbench/loopbench/internal/harness/httpwire"
)

// TLSOptions are `loopbench load`'s TLS flags: -tls, -insecure, -ca and
// -servername.
type TLSOptions struct {
	On, Insecure   bool
	CA, ServerName string
}

// Apply makes cfg dial over TLS 1.3 (X25519) when On, and returns the
// line the output carries (a configuration line in benchfmt); it labels
// cfg, when it has no label, so that TLS and plain-text runs never
// merge. Every error is the flags' misuse, named in one line.
func (t TLSOptions) Apply(cfg *Config) (string, error) {
	if !t.On {
		if t.Insecure || t.CA != "" || t.ServerName != "" {
			return "", errors.New("-insecure, -ca and -servername need -tls")
		}
		return "", nil
	}
	name := t.ServerName
	if name == "" {
		name, _, _ = net.SplitHostPort(cfg.Addr)
	}
	config := &tls.Config{ServerName: name, MinVersion: tls.VersionTLS13, CurvePreferences: []tls.CurveID{tls.X25519}, InsecureSkipVerify: t.Insecure}
	if t.CA != "" {
		pem, err := os.ReadFile(t.CA)
		if err != nil {
			return "", fmt.Errorf("-ca: %v", err)
		}
		config.RootCAs = x509.NewCertPool()
		if !config.RootCAs.AppendCertsFromPEM(pem) {
			return "", fmt.Errorf("-ca %s: no PEM certificate in it", t.CA)
		}
	}
	cfg.TLS = config // the generator's loops handshake it, within -timeout
	line := "tls: TLS 1.3, X25519, certificate verified for " + name
	label := "tls:"
	if t.Insecure {
		line = "tls: TLS 1.3, X25519, certificate NOT verified (-insecure)"
		label = "tls-insecure:"
	}
	if cfg.Label == "" {
		cfg.Label = label + cfg.Addr
	}
	return line, nil
}

// TLSFailure names a failed TLS handshake in err, for a run of cfg over
// TLS: a certificate that was not verified, with the flags that would
// accept it, or any other handshake failure. Other errors are returned
// as they are.
func TLSFailure(cfg Config, err error) error {
	if cfg.TLS == nil || err == nil {
		return err
	}
	var cv *tls.CertificateVerificationError
	if errors.As(err, &cv) {
		return fmt.Errorf("tls: the handshake with %s failed: the server's certificate was not verified (%v): trust its CA with -ca FILE, or skip verification with -insecure", cfg.Addr, cv.Err)
	}
	var alert tls.AlertError
	var header tls.RecordHeaderError
	if errors.As(err, &alert) || errors.As(err, &header) {
		return fmt.Errorf("tls: the handshake with %s failed: %v", cfg.Addr, err)
	}
	return err
}

// HTTPOptions are `loopbench load`'s HTTP flags: -proto, -url, -method,
// -path, -header, -body and -body-file.
type HTTPOptions struct {
	Proto, Method, Path string
	URL, Body, BodyFile string
	Headers             []string
}

// Apply makes cfg's runs speak HTTP when asked: it parses URL into the
// address, the path and TLS (t.On for https), builds the request, and
// labels cfg, when it has no label, so that its runs never merge with
// echo runs. set holds the flags given, by name. Every error is the
// flags' misuse, named in one line.
func (h *HTTPOptions) Apply(cfg *Config, t *TLSOptions, set map[string]bool) error {
	if h.URL != "" {
		if set["addr"] || set["path"] {
			return errors.New("-url gives the address and path: leave out -addr and -path")
		}
		if err := h.fromURL(cfg, t); err != nil {
			return err
		}
	}
	switch {
	case h.Proto == "echo":
		for _, name := range []string{"method", "path", "header", "body", "body-file"} {
			if set[name] {
				return fmt.Errorf("-%s needs -proto http", name)
			}
		}
		return nil
	case h.Proto != "http":
		return fmt.Errorf("-proto %q: want echo or http", h.Proto)
	case set["size"]:
		return errors.New("-size is the echo protocol's: an HTTP request is as long as its bytes")
	case cfg.Network == "udp":
		return errors.New("-proto http goes over TCP, not -udp")
	case h.Body != "" && h.BodyFile != "":
		return errors.New("-body and -body-file: give one")
	}
	body := []byte(h.Body)
	if h.BodyFile != "" {
		b, err := os.ReadFile(h.BodyFile)
		if err != nil {
			return fmt.Errorf("-body-file: %v", err)
		}
		body = b
	}
	req, err := httpwire.NewRequest(h.Method, cfg.Addr, h.Path, h.Headers, body)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "httpwire: "))
	}
	cfg.HTTP = &HTTP{Request: req, Head: h.Method == "HEAD"}
	if cfg.Label == "" {
		scheme := "http://"
		if t.On {
			scheme = "https://"
		}
		cfg.Label = scheme + cfg.Addr + h.Path
	}
	return nil
}

// fromURL takes URL: the address (the scheme's port by default), the
// path with its query, HTTP, and TLS for https.
func (h *HTTPOptions) fromURL(cfg *Config, t *TLSOptions) error {
	u, err := url.Parse(h.URL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("-url %q: want http://host[:port]/path or https://…", h.URL)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	cfg.Addr = net.JoinHostPort(u.Hostname(), port)
	h.Path = u.RequestURI()
	h.Proto = "http"
	if u.Scheme == "https" {
		t.On = true
	}
	return nil
}
