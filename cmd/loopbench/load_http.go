package main

import (
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/loopbench/loopbench/internal/harness/httpwire"
	"github.com/loopbench/loopbench/internal/harness/load"
)

// loadHTTP is load's HTTP/1.1 mode: its flags, and the request they make.
type loadHTTP struct {
	proto, method, path string
	url, body, bodyFile string
	headers             headerList
}

// headerList is a repeated -header flag.
type headerList []string

func (h *headerList) String() string     { return strings.Join(*h, ", ") }
func (h *headerList) Set(v string) error { *h = append(*h, v); return nil }

func addLoadHTTPFlags(fs *flag.FlagSet) *loadHTTP {
	h := &loadHTTP{}
	fs.StringVar(&h.proto, "proto", "echo", "what to speak: echo (loopbench's echo protocol) or http (HTTP/1.1 keep-alive)")
	fs.StringVar(&h.url, "url", "", "with -proto http (implied): the URL to load, http://host:port/path or https:// (then over -tls); instead of -addr and -path")
	fs.StringVar(&h.method, "method", "GET", "with -proto http: the request method")
	fs.StringVar(&h.path, "path", "/", "with -proto http: the request target")
	fs.Var(&h.headers, "header", "with -proto http: a request header line, Name: value (repeat the flag for more)")
	fs.StringVar(&h.body, "body", "", "with -proto http: the request body")
	fs.StringVar(&h.bodyFile, "body-file", "", "with -proto http: read the request body from this file")
	return h
}

// apply makes f's runs speak HTTP when asked: it parses -url into -addr,
// -path and -tls, builds the request, and labels the runs so that they
// never merge with echo runs. set holds the flags given.
func (h *loadHTTP) apply(f *loadFlags, t *loadTLS, set map[string]bool) error {
	if h.url != "" {
		if set["addr"] || set["path"] {
			return usageError{"-url gives the address and path: leave out -addr and -path"}
		}
		if err := h.fromURL(f, t); err != nil {
			return err
		}
	}
	switch {
	case h.proto == "echo":
		for _, name := range []string{"method", "path", "header", "body", "body-file"} {
			if set[name] {
				return usageError{fmt.Sprintf("-%s needs -proto http", name)}
			}
		}
		return nil
	case h.proto != "http":
		return usageError{fmt.Sprintf("-proto %q: want echo or http", h.proto)}
	case set["size"]:
		return usageError{"-size is the echo protocol's: an HTTP request is as long as its bytes"}
	case f.udp:
		return usageError{"-proto http goes over TCP, not -udp"}
	case h.body != "" && h.bodyFile != "":
		return usageError{"-body and -body-file: give one"}
	}
	body := []byte(h.body)
	if h.bodyFile != "" {
		b, err := os.ReadFile(h.bodyFile)
		if err != nil {
			return usageError{fmt.Sprintf("-body-file: %v", err)}
		}
		body = b
	}
	req, err := httpwire.NewRequest(h.method, f.cfg.Addr, h.path, h.headers, body)
	if err != nil {
		return usageError{strings.TrimPrefix(err.Error(), "httpwire: ")}
	}
	f.cfg.HTTP = &load.HTTP{Request: req, Head: h.method == "HEAD"}
	if f.cfg.Label == "" {
		scheme := "http://"
		if t.on {
			scheme = "https://"
		}
		f.cfg.Label = scheme + f.cfg.Addr + h.path
	}
	return nil
}

// fromURL takes -url: the address (the scheme's port by default), the
// path with its query, HTTP, and TLS for https.
func (h *loadHTTP) fromURL(f *loadFlags, t *loadTLS) error {
	u, err := url.Parse(h.url)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return usageError{fmt.Sprintf("-url %q: want http://host[:port]/path or https://…", h.url)}
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	f.cfg.Addr = net.JoinHostPort(u.Hostname(), port)
	h.path = u.RequestURI()
	h.proto = "http"
	if u.Scheme == "https" {
		t.on = true
	}
	return nil
}
