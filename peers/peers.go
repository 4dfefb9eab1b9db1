// Package peers holds the programs that run loopbench's workloads on
// other event loops, in the same shapes, and finds, builds and runs them:
// asyncio and uvloop (python/peer.py, one script on both loops), libuv,
// libev and libevent (c/*.c), and liburing (c/liburing.c: not a loop, the
// anchor of io_uring's poll requests under libevent's bench.c, beside
// loopbench's uring selector). Each program prints Go benchmark lines named
// as loopbench's own (BenchmarkTimers/impl=libev/op=cold-fire/k=100000),
// so that its results land in the same benchfmt file as loopbench's.
// Beside them, the floor client (c/floor.c, Floor) drives an echo server as
// loopbench load does, at the least cost a generator can have here. The
// peers of EchoServers run echo servers for loopbench load, and those of
// HTTPServers HTTP/1.1 keep-alive servers for load -proto http (Python's
// with httptools, libuv's a minimal responder in C).
//
// The sources are embedded in the binary. The C programs are built on
// demand with the system's C compiler and pkg-config, into a cache
// directory keyed by a hash of their sources and flags, so a changed
// source is rebuilt and an unchanged one is not.
package peers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/loopbench/loopbench/selectors"
)

//go:embed c/*.c c/*.h python/*.py
var sources embed.FS

// Names are the peers, in the order reports list them.
var Names = []string{"asyncio", "uvloop", "libuv", "libev", "libevent", "liburing"}

// loops are the peers that are event loops, with timers: all but liburing.
var loops = Names[:5]

// spec describes how to get a peer running.
type spec struct {
	python   bool
	module   string // python: the module the peer needs
	source   string // C: the program's source in c/
	header   string // C: the library's header
	pkg      string // C: its pkg-config name; "" when it ships none
	fallback []string
	debian   string // the Debian package that provides it
	linux    string // C: what Linux has that the program needs ("": it builds elsewhere too)
	uring    bool   // it needs a kernel that allows io_uring
}

var specs = map[string]spec{
	"asyncio":  {python: true, module: "asyncio", debian: "python3"},
	"uvloop":   {python: true, module: "uvloop", debian: "python3-uvloop"},
	"libuv":    {source: "libuv.c", header: "uv.h", pkg: "libuv", debian: "libuv1-dev"},
	"libev":    {source: "libev.c", header: "ev.h", fallback: []string{"-lev"}, debian: "libev-dev"},
	"libevent": {source: "libevent.c", header: "event2/event.h", pkg: "libevent", debian: "libevent-dev"},
	"liburing": {source: "liburing.c", header: "liburing.h", pkg: "liburing", debian: "liburing-dev", linux: "io_uring", uring: true},
	Floor:      {source: "floor.c", header: "sys/epoll.h", linux: "epoll_pwait2", debian: "gcc"},
}

// Peer is a peer ready to run.
type Peer struct {
	Name   string
	argv   []string // the program and its leading arguments
	python string   // the Python peers' interpreter
}

// Command returns the command line of one run of workload with args.
func (p *Peer) Command(workload string, args ...string) []string {
	return append(append(append([]string(nil), p.argv...), workload), args...)
}

// Skip is a peer that cannot run here, and why, naming what to install.
type Skip struct {
	Name, Reason string
}

func (s Skip) String() string { return s.Name + ": " + s.Reason }

// Find returns the peers among names that can run here, building the C
// ones into cacheDir, and one Skip for each that cannot.
func Find(ctx context.Context, names []string, cacheDir string) ([]*Peer, []Skip) {
	var ready []*Peer
	var skipped []Skip
	py := pythons()
	for _, name := range names {
		sp, ok := specs[name]
		switch {
		case !ok:
			skipped = append(skipped, Skip{name, fmt.Sprintf("no such peer (valid: %s, %s)", strings.Join(Names, ", "), Floor)})
			continue
		case sp.linux != "" && runtime.GOOS != "linux":
			skipped = append(skipped, Skip{name, "needs Linux (" + sp.linux + ")"})
			continue
		case sp.uring && selectors.Available("uring") != nil:
			skipped = append(skipped, Skip{name, selectors.Available("uring").Error()})
			continue
		}
		var p *Peer
		var err error
		if sp.python {
			p, err = findPython(ctx, name, sp, py, cacheDir)
		} else {
			p, err = buildC(ctx, name, sp, cacheDir)
		}
		if err != nil {
			skipped = append(skipped, Skip{name, err.Error()})
			continue
		}
		ready = append(ready, p)
	}
	return ready, skipped
}

// pythonCandidates are the Python interpreters the Python peers try, in
// order: the one on PATH (which may be a pyenv or virtualenv Python
// without uvloop), then the system's (Debian's python3-uvloop installs
// for it).
var pythonCandidates = []string{"python3", "/usr/bin/python3"}

// pythons lists the interpreters of pythonCandidates found here, each
// once (by the file it resolves to).
func pythons() []string {
	var out []string
	for _, c := range pythonCandidates {
		path, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
		dup := false
		for _, o := range out {
			dup = dup || o == path
		}
		if !dup {
			out = append(out, path)
		}
	}
	return out
}

// findPython picks the first interpreter with the peer's module,
// preferring one that has uvloop, so that asyncio and uvloop run on the
// same Python. Where none has it, the reason names the interpreters
// tried.
func findPython(ctx context.Context, name string, sp spec, interps []string, cacheDir string) (*Peer, error) {
	if len(interps) == 0 {
		return nil, fmt.Errorf("no python3 (Debian: apt install python3%s)", map[bool]string{true: " python3-uvloop", false: ""}[name == "uvloop"])
	}
	var has []string
	for _, py := range interps {
		if exec.CommandContext(ctx, py, "-c", "import "+sp.module).Run() == nil {
			has = append(has, py)
		}
	}
	if len(has) == 0 {
		return nil, fmt.Errorf("no python3 here has the %s module (tried %s; Debian: apt install %s)", sp.module, strings.Join(interps, ", "), sp.debian)
	}
	chosen := has[0]
	for _, py := range has {
		if exec.CommandContext(ctx, py, "-c", "import uvloop").Run() == nil {
			chosen = py
			break
		}
	}
	script, err := materialize(cacheDir, "python/peer.py")
	if err != nil {
		return nil, err
	}
	return &Peer{Name: name, argv: []string{chosen, script, name}, python: chosen}, nil
}

// materialize writes an embedded source into the cache, under a name
// derived from its content, and returns its path.
func materialize(cacheDir, name string) (string, error) {
	src, err := sources.ReadFile(name)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(src)
	dir := filepath.Join(cacheDir, hex.EncodeToString(sum[:6]))
	path := filepath.Join(dir, filepath.Base(name))
	if b, err := os.ReadFile(path); err == nil && bytes.Equal(b, src) {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, src, 0o644)
}

// buildC compiles a C peer, unless the cache holds a build of the same
// sources with the same flags.
func buildC(ctx context.Context, name string, sp spec, cacheDir string) (*Peer, error) {
	cc, err := cCompiler()
	if err != nil {
		return nil, err
	}
	flags, err := cFlags(ctx, sp)
	if err != nil {
		return nil, err
	}
	src, err := sources.ReadFile("c/" + sp.source)
	if err != nil {
		return nil, err
	}
	hdr, err := sources.ReadFile("c/peer.h")
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", cc, strings.Join(flags, " "), sp.source)
	h.Write(src)
	h.Write(hdr)
	dir := filepath.Join(cacheDir, hex.EncodeToString(h.Sum(nil)[:6]))
	bin := filepath.Join(dir, name)
	if _, err := os.Stat(bin); err == nil {
		return &Peer{Name: name, argv: []string{bin}}, nil
	}
	if err := compileC(ctx, cc, flags, sp, dir, bin, src, hdr); err != nil {
		return nil, err
	}
	return &Peer{Name: name, argv: []string{bin}}, nil
}

// cCompiler returns the C compiler: $CC, cc or gcc, the first found.
func cCompiler() (string, error) {
	for _, c := range []string{os.Getenv("CC"), "cc", "gcc"} {
		if c != "" {
			if _, err := exec.LookPath(c); err == nil {
				return c, nil
			}
		}
	}
	return "", errors.New("no C compiler (Debian: apt install gcc)")
}

// cFlags returns the compiler and linker flags of sp's library, from
// pkg-config when it names a package.
func cFlags(ctx context.Context, sp spec) ([]string, error) {
	if sp.pkg == "" {
		return sp.fallback, nil
	}
	if _, err := exec.LookPath("pkg-config"); err != nil {
		return nil, fmt.Errorf("no pkg-config to find %s (Debian: apt install pkg-config %s)", sp.pkg, sp.debian)
	}
	out, err := exec.CommandContext(ctx, "pkg-config", "--cflags", "--libs", sp.pkg).Output()
	if err != nil {
		return nil, fmt.Errorf("pkg-config knows no %s (Debian: apt install %s)", sp.pkg, sp.debian)
	}
	return strings.Fields(string(out)), nil
}

// compileC writes sp's source and the shared header src and hdr into dir
// and compiles them with cc into bin, which appears only once complete.
func compileC(ctx context.Context, cc string, flags []string, sp spec, dir, bin string, src, hdr []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{sp.source, src}, {"peer.h", hdr}} {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return err
		}
	}
	tmp := bin + ".tmp"
	args := append([]string{"-O2", "-o", tmp, filepath.Join(dir, sp.source)}, flags...)
	cmd := exec.CommandContext(ctx, cc, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if strings.Contains(stderr.String(), sp.header) || strings.Contains(stderr.String(), "cannot find -l") {
			return fmt.Errorf("%s is not installed (Debian: apt install %s)", sp.header, sp.debian)
		}
		return fmt.Errorf("build failed: %s", firstLine(stderr.String(), err))
	}
	return os.Rename(tmp, bin)
}

func firstLine(s string, err error) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return err.Error()
}

// CacheDir is where the C peers are built by default.
func CacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "loopbench", "peers")
	}
	return filepath.Join(os.TempDir(), "loopbench-peers")
}

// Version returns the peer's version line: "libuv 1.44.2", "uvloop 0.17.0
// on Python 3.11.2 at /usr/bin/python3.11" (a Python peer's names the
// interpreter that runs it).
func (p *Peer) Version(ctx context.Context) string {
	argv := p.Command("version")
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).Output()
	v := strings.TrimSpace(string(out))
	if err != nil || v == "" {
		v = "unknown"
	}
	if p.python != "" {
		v += " at " + p.python
	}
	return v
}

// EchoServer returns the command of the peer's echo server on host:port,
// for loopbench load; ok is false when the peer has none.
func (p *Peer) EchoServer(host, port string) (argv []string, ok bool) {
	for _, s := range EchoServers {
		if s == p.Name {
			return p.Command("echo-server", host, port), true
		}
	}
	return nil, false
}

// ServesHTTP reports why the peer cannot run its HTTP server here, nil
// when it can: it has none, or its Python lacks httptools (naming the
// Debian package).
func (p *Peer) ServesHTTP(ctx context.Context) error {
	switch {
	case !slices.Contains(HTTPServers, p.Name):
		return fmt.Errorf("%s has no HTTP server (those with one: %s)", p.Name, strings.Join(HTTPServers, ", "))
	case p.python != "" && exec.CommandContext(ctx, p.python, "-c", "import httptools").Run() != nil:
		return fmt.Errorf("%s has no httptools module (Debian: apt install python3-httptools)", p.python)
	}
	return nil
}

// HTTPServer returns the command of the peer's HTTP/1.1 keep-alive
// server on host:port, answering every request with 200 and size bytes
// of body, for loopbench load -proto http; ServesHTTP says whether it
// can run.
func (p *Peer) HTTPServer(host, port string, size int) []string {
	return p.Command("http-server", host, port, strconv.Itoa(size))
}

// EchoServerTLS returns the command of the peer's TLS echo server on
// host:port with the PEM files cert and key (Python's ssl under asyncio's
// create_server(ssl=)); ok is false when the peer has none.
func (p *Peer) EchoServerTLS(host, port, cert, key string) (argv []string, ok bool) {
	for _, s := range TLSEchoServers {
		if s == p.Name {
			return p.Command("echo-server", host, port, cert, key), true
		}
	}
	return nil, false
}
