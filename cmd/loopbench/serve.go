package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/loopbench/loopbench/internal/harness/serve"
)

const serveUsage = `usage: loopbench serve [flags]

Runs an echo server until interrupted (or for -duration): protocol-,
task- or stream-style on a loopbench variant, gonet (a goroutine per
connection on the net package), or a peer's (asyncio, uvloop, libuv).
Prints "listening on ADDR" once it accepts connections. -tls serves TLS
(a throwaway certificate, whose fingerprint that line gives, unless -cert
and -key); -proto http serves HTTP/1.1 (200 and -size bytes of body);
-work D makes a loop server one of known capacity, 1/D requests/s, for
checking load generators. The servers and their options: docs/cli.md,
section Serve.

Exit status: 0 stopped by an interrupt or -duration; 1 the server
failed, or -cpu could not pin it; 2 a usage error, or an -addr that does
not resolve.

Examples:
  loopbench serve -addr 127.0.0.1:9000
  loopbench serve -variant ready=deque/selector=poll -style task -cpu 0
  loopbench serve -impl gonet -addr 127.0.0.1:9001
  loopbench serve -proto http -size 1024 -addr 127.0.0.1:8080 -cpu 0
  loopbench serve -impl uvloop -addr localhost:9002 -cpu 0
  loopbench serve -tls -addr 127.0.0.1:9443
  loopbench serve -work 100us -cpu 0   # capacity 10,000 requests/s

Flags:
`

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, serveUsage); fs.PrintDefaults() }
	var c serve.Choice
	fs.StringVar(&c.Variant, "variant", "", "loop variant (as 'loopbench list' prints); default: the default variant")
	fs.StringVar(&c.Impl, "impl", "", "serve without a loopbench loop: gonet (the net package, a goroutine per connection), or a peer: asyncio, uvloop, libuv")
	fs.StringVar(&c.Style, "style", "protocol", "protocol, task or stream; protocol-next and protocol-coroutine are the order's floors (docs/cli.md)")
	fs.StringVar(&c.Proto, "proto", "echo", "what to serve: echo (each request's bytes back) or http (HTTP/1.1 keep-alive, 200 with -size bytes of body)")
	addr := fs.String("addr", "127.0.0.1:0", "listen address: host (a name or an IP) and port")
	fs.DurationVar(&c.Duration, "duration", 0, "stop after this long (0: until interrupted)")
	cpus := fs.String("cpu", "", "pin the server to these CPUs (e.g. 0)")
	fs.BoolVar(&c.TLS.On, "tls", false, "serve TLS (protocol or stream style, gonet, asyncio, uvloop); with no -cert, a throwaway certificate (clients then need load -insecure)")
	fs.StringVar(&c.TLS.Cert, "cert", "", "with -tls: the certificate chain, a PEM file")
	fs.StringVar(&c.TLS.Key, "key", "", "with -tls: its private key, a PEM file")
	fs.DurationVar(&c.Work, "work", 0, "spend this much CPU (a busy loop on the loop's thread, not a sleep) on every request before echoing it: a server of known capacity: 1/D requests/s per loop thread (0: none)")
	fs.IntVar(&c.Size, "size", 1024, "with -work: the bytes of a request, load's -size (the work is spent once per this many bytes a connection receives); 0: once per read. With -proto http: the bytes of every response's body")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	set := given(fs)
	plan, err := c.Check(set)
	if err != nil {
		return usageError{err.Error()}
	}
	resolved, err := serve.ResolveListen(*addr)
	if err != nil {
		return usageError{fmt.Sprintf("-addr %q: %v", *addr, err)}
	}
	if err := pin(*cpus); err != nil {
		return err
	}
	ctx, stop := interruptContext(serving)
	defer stop()
	return plan.Run(ctx, *addr, resolved, stdout, stderr)
}
