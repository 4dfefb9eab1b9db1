package tlscert

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"testing"
)

// TestIssueVerifies: a leaf verifies against its CA for each of its hosts
// and no other, and its PEM files load back as a key pair.
func TestIssueVerifies(t *testing.T) {
	ca, err := NewCA("test CA")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ca.Issue("localhost", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"localhost", "127.0.0.1"} {
		if _, err := cert.Leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: ca.Pool}); err != nil {
			t.Fatalf("%s: %v", host, err)
		}
	}
	var he x509.HostnameError
	if _, err := cert.Leaf.Verify(x509.VerifyOptions{DNSName: "example.com", Roots: ca.Pool}); !errors.As(err, &he) {
		t.Fatalf("example.com: %v, want a HostnameError", err)
	}
	other, err := NewCA("other")
	if err != nil {
		t.Fatal(err)
	}
	var ua x509.UnknownAuthorityError
	if _, err := cert.Leaf.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: other.Pool}); !errors.As(err, &ua) {
		t.Fatalf("another CA: %v, want UnknownAuthorityError", err)
	}
	files, err := WriteFiles(t.TempDir(), "leaf", cert, ca)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := tls.LoadX509KeyPair(files.Cert, files.Key)
	if err != nil || string(loaded.Certificate[0]) != string(cert.Certificate[0]) {
		t.Fatalf("loading the files back: %v", err)
	}
	if _, err := ca.Issue(); err == nil {
		t.Fatal("Issue with no host: no error")
	}
}
