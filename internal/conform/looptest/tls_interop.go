package looptest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/measure/tlscert"
)

// RunTLSInterop runs loopbench's TLS against other implementations on
// cfg: Python's ssl module as a client and asyncio's TLS server, and
// OpenSSL's s_client and s_server, at TLS 1.3 and 1.2. A test whose
// program is missing is skipped with one line.
func RunTLSInterop(t *testing.T, cfg loopbench.Config) {
	var cases []loopTest
	for _, v := range []uint16{tls.VersionTLS13, tls.VersionTLS12} {
		name := strings.ReplaceAll(tls.VersionName(v), " ", "")
		cases = append(cases,
			loopTest{"PythonClient" + name, func(t *testing.T, l *loopbench.Loop) { testPythonClient(t, l, v) }},
			loopTest{"AsyncioServer" + name, func(t *testing.T, l *loopbench.Loop) { testAsyncioServer(t, l, v) }},
			loopTest{"OpenSSLClient" + name, func(t *testing.T, l *loopbench.Loop) { testOpenSSLClient(t, l, v) }},
			loopTest{"OpenSSLServer" + name, func(t *testing.T, l *loopbench.Loop) { testOpenSSLServer(t, l, v) }})
	}
	runEach(t, cfg, cases)
}

var (
	pythonOnce sync.Once
	pythonPath string
)

// python returns an interpreter with the ssl module, or skips the test.
func python(t *testing.T) string {
	pythonOnce.Do(func() {
		for _, p := range []string{"/usr/bin/python3", "python3"} {
			if exec.Command(p, "-c", "import ssl, asyncio").Run() == nil {
				pythonPath = p
				return
			}
		}
	})
	if pythonPath == "" {
		t.Skip("no python3 with the ssl module (Debian: apt install python3)")
	}
	return pythonPath
}

func openssl(t *testing.T) string {
	p, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("no openssl (Debian: apt install openssl)")
	}
	return p
}

// certFiles writes the fixture's server and client certificates and its
// CA as PEM files.
func certFiles(t *testing.T) (server, client tlscert.Files) {
	f := certs(t)
	dir := t.TempDir()
	var err error
	if server, err = tlscert.WriteFiles(dir, "server", f.server, f.ca); err != nil {
		t.Fatal(err)
	}
	if client, err = tlscert.WriteFiles(dir, "client", f.client, f.ca); err != nil {
		t.Fatal(err)
	}
	return server, client
}

// alpnServer starts a loop TLS server at version v that offers ALPN
// http/1.1, and writes the certificate files its clients need.
func alpnServer(t *testing.T, l *loopbench.Loop, v uint16, echo bool) (tlscert.Files, *loopbench.Server, *[]*tlsProto) {
	files, _ := certFiles(t)
	scfg := certs(t).serverConfig(v)
	scfg.NextProtos = []string{"http/1.1"}
	s, protos := tlsServer(t, l, echo, loopbench.WithTLS(scfg))
	return files, s, protos
}

// pyVersion is Python's name of a TLS version.
func pyVersion(v uint16) string {
	if v == tls.VersionTLS12 {
		return "TLSv1_2"
	}
	return "TLSv1_3"
}

const pythonClient = `
import socket, ssl, sys
host, port, cafile, version = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
ctx = ssl.create_default_context(cafile=cafile)
ctx.minimum_version = ctx.maximum_version = getattr(ssl.TLSVersion, version)
ctx.set_alpn_protocols(["x-none", "http/1.1"])
msg = bytes(range(251)) * 1200
with socket.create_connection((host, port), timeout=30) as raw:
    with ctx.wrap_socket(raw, server_hostname="localhost") as s:
        s.sendall(msg)
        got = b""
        while len(got) < len(msg):
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
        if got != msg:
            sys.exit("echo of %d bytes came back as %d different bytes" % (len(msg), len(got)))
        print(s.version(), s.selected_alpn_protocol())
        s.unwrap()
`

// testPythonClient: Python's ssl echoes 300 kB through a loop TLS server,
// negotiates ALPN, and shuts down with close_notify both ways.
func testPythonClient(t *testing.T, l *loopbench.Loop, v uint16) {
	py := python(t)
	files, s, protos := alpnServer(t, l, v, true)
	host, port := splitAddr(s)
	var out []byte
	whileClient(t, l, func() (err error) {
		out, err = runProgram(py, "-c", pythonClient, host, port, files.CA, pyVersion(v))
		return err
	})
	if got, want := strings.TrimSpace(string(out)), sslName(v)+" http/1.1"; got != want {
		t.Fatalf("Python printed %q, want %q", got, want)
	}
	if err := (*protos)[0].lostErr(t, l); err != nil {
		t.Fatalf("ConnectionLost(%v) after Python's unwrap, want nil", err)
	}
}

// sslName is OpenSSL's (and Python's) name of a TLS version: TLSv1.3.
func sslName(v uint16) string { return strings.ReplaceAll(tls.VersionName(v), "TLS 1", "TLSv1") }

func splitAddr(s *loopbench.Server) (host, port string) {
	a := s.Addr().String()
	i := strings.LastIndex(a, ":")
	return a[:i], a[i+1:]
}

// runProgram runs a command with a deadline and returns its standard output; a
// failure carries its standard error.
func runProgram(name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s: %v: %s", name, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

const asyncioServer = `
import asyncio, ssl, sys
cert, key, ca, version = sys.argv[1:5]
ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
ctx.load_cert_chain(cert, key)
ctx.load_verify_locations(ca)
ctx.verify_mode = ssl.CERT_REQUIRED
ctx.minimum_version = ctx.maximum_version = getattr(ssl.TLSVersion, version)
ctx.set_alpn_protocols(["h2", "http/1.1"])

async def echo(reader, writer):
    peer = writer.get_extra_info("peercert")
    writer.write(("%s %s %s\n" % (writer.get_extra_info("ssl_object").version(),
        writer.get_extra_info("ssl_object").selected_alpn_protocol(),
        dict(x[0] for x in peer["subject"])["commonName"])).encode())
    while data := await reader.read(65536):
        writer.write(data)
        await writer.drain()
    writer.close()

async def main():
    server = await asyncio.start_server(echo, "127.0.0.1", 0, ssl=ctx)
    print(server.sockets[0].getsockname()[1], flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
`

// testAsyncioServer: a loop TLS client with a client certificate echoes
// through asyncio's TLS server, which reports what it negotiated and whom
// it saw.
func testAsyncioServer(t *testing.T, l *loopbench.Loop, v uint16) {
	py := python(t)
	files, _ := certFiles(t)
	port, stop := startServerProcess(t, exec.Command(py, "-c", asyncioServer, files.Cert, files.Key, files.CA, pyVersion(v)), func(line string) (string, bool) {
		return strings.TrimSpace(line), line != ""
	})
	defer stop()
	f := certs(t)
	ccfg := f.clientConfig(v)
	ccfg.Certificates = []tls.Certificate{f.client}
	ccfg.NextProtos = []string{"http/1.1"}
	p, err := tlsConnect(t, l, "127.0.0.1:"+port, false, loopbench.WithTLS(ccfg), loopbench.WithServerName("localhost"))
	if err != nil {
		t.Fatal(err)
	}
	msg := pattern(200 << 10)
	p.t.Write(msg)
	head := sslName(v) + " http/1.1 client.test\n"
	waitFor(t, l, func() bool { return len(p.got) >= len(head)+len(msg) })
	if string(p.got[:len(head)]) != head || !bytes.Equal(p.got[len(head):], msg) || p.state.NegotiatedProtocol != "http/1.1" {
		t.Fatalf("asyncio said %q (want %q), echo equal %v, ALPN %q", p.got[:min(len(p.got), len(head))], head, bytes.Equal(p.got[len(head):], msg), p.state.NegotiatedProtocol)
	}
	p.t.Close()
	if err := p.lostErr(t, l); err != nil {
		t.Fatalf("ConnectionLost(%v) after Close, want nil", err)
	}
}

// startServerProcess starts cmd and reads its standard output until
// parse finds the port in a line; stop kills it and waits.
func startServerProcess(t *testing.T, cmd *exec.Cmd, parse func(line string) (string, bool)) (port string, stop func()) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop = func() {
		cmd.Process.Kill()
		cmd.Wait()
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if p, ok := parse(sc.Text()); ok {
			go func() {
				for sc.Scan() {
				}
			}()
			return p, stop
		}
	}
	stop()
	t.Fatalf("%s printed no port", cmd.Path)
	return "", nil
}

// opensslVersion is the s_client/s_server flag of a TLS version.
func opensslVersion(v uint16) string {
	if v == tls.VersionTLS12 {
		return "-tls1_2"
	}
	return "-tls1_3"
}

// testOpenSSLClient: openssl s_client verifies the loop server's
// certificate, negotiates ALPN, gets its line back, and ends when the
// server closes.
func testOpenSSLClient(t *testing.T, l *loopbench.Loop, v uint16) {
	bin := openssl(t)
	files, s, protos := alpnServer(t, l, v, false)
	_, port := splitAddr(s)
	var out []byte
	var stderr bytes.Buffer
	waitLine := l.CreateFuture()
	var poll func()
	poll = func() { // answer the first line, then close
		if len(*protos) > 0 && bytes.Contains((*protos)[0].got, []byte("\n")) {
			p := (*protos)[0]
			p.t.Write(bytes.ToUpper(p.got))
			p.t.Close()
			waitLine.SetResult(nil)
			return
		}
		l.CallLater(time.Millisecond, poll)
	}
	l.CallSoon(poll)
	whileClient(t, l, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "s_client", "-connect", "127.0.0.1:"+port, "-CAfile", files.CA, "-verify_return_error",
			"-servername", "localhost", "-alpn", "http/1.1", opensslVersion(v), "-brief", "-quiet")
		cmd.Stdin = strings.NewReader("hello from openssl\n")
		cmd.Stderr = &stderr
		var err error
		out, err = cmd.Output()
		return err
	})
	if string(out) != "HELLO FROM OPENSSL\n" {
		t.Fatalf("s_client got %q; its stderr: %s", out, stderr.String())
	}
	want := "Protocol version: " + sslName(v)
	if e := stderr.String(); !strings.Contains(e, want) || !strings.Contains(e, "Verification: OK") {
		t.Fatalf("s_client's summary lacks %q or a verified certificate: %s", want, e)
	}
	if err := (*protos)[0].lostErr(t, l); err != nil {
		t.Fatalf("ConnectionLost(%v), want nil", err)
	}
}

// testOpenSSLServer: a loop TLS client gets its line back reversed from
// openssl s_server -rev and reads the negotiated version.
func testOpenSSLServer(t *testing.T, l *loopbench.Loop, v uint16) {
	bin := openssl(t)
	files, _ := certFiles(t)
	port, stop := startServerProcess(t, exec.Command(bin, "s_server", "-accept", "0", "-cert", files.Cert, "-key", files.Key,
		opensslVersion(v), "-rev", "-naccept", "1"), func(line string) (string, bool) {
		p, ok := strings.CutPrefix(line, "ACCEPT ")
		return p[strings.LastIndex(p, ":")+1:], ok
	})
	defer stop()
	p, err := tlsConnect(t, l, "127.0.0.1:"+port, false, loopbench.WithTLS(certs(t).clientConfig(v)),
		loopbench.WithServerName("localhost"), loopbench.WithShutdownTimeout(shortTimeout))
	if err != nil {
		t.Fatal(err)
	}
	if p.state.Version != v {
		t.Fatalf("negotiated %s, want %s", tls.VersionName(p.state.Version), tls.VersionName(v))
	}
	p.t.Write([]byte("loopbench\n"))
	waitFor(t, l, func() bool { return bytes.Contains(p.got, []byte("\n")) })
	if !bytes.Contains(p.got, []byte("hcnebpool")) {
		t.Fatalf("s_server answered %q, want the line reversed", p.got)
	}
}
