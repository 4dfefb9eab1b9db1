// Package tlscert makes throwaway X.509 certificates for TLS: an ECDSA
// P-256 certificate authority and the leaf certificates it signs, in
// memory or as PEM files, for the TLS tests and benchmarks and for
// `loopbench serve -tls` when no certificate is given.
package tlscert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Validity is how long the certificates are valid, from an hour ago (a
// peer's clock may lag).
const Validity = 7 * 24 * time.Hour

// CA is a certificate authority: its certificate, key, and a pool that
// trusts it.
type CA struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
	Pool *x509.CertPool
}

// NewCA makes a certificate authority named name.
func NewCA(name string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl, err := template(name)
	if err != nil {
		return nil, err
	}
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &CA{Cert: cert, Key: key, Pool: pool}, nil
}

// Issue makes a leaf certificate for hosts (DNS names or IP addresses),
// good for both server and client authentication; its subject's common
// name is the first host.
func (ca *CA) Issue(hosts ...string) (tls.Certificate, error) {
	if len(hosts) == 0 {
		return tls.Certificate{}, fmt.Errorf("tlscert: Issue needs a host")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl, err := template(hosts[0])
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

func template(name string) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name, Organization: []string{"loopbench throwaway"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(Validity),
	}, nil
}

// CertPEM returns the PEM encoding of a DER certificate.
func CertPEM(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// KeyPEM returns the PEM encoding (PKCS #8) of cert's private key.
func KeyPEM(cert tls.Certificate) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// Files are a certificate, its key and its authority as PEM files.
type Files struct {
	Cert, Key, CA string
}

// WriteFiles writes cert (name.pem), its key (name-key.pem) and, unless
// ca is nil, ca's certificate (ca.pem) into dir.
func WriteFiles(dir, name string, cert tls.Certificate, ca *CA) (Files, error) {
	f := Files{Cert: filepath.Join(dir, name+".pem"), Key: filepath.Join(dir, name+"-key.pem")}
	key, err := KeyPEM(cert)
	if err != nil {
		return f, err
	}
	var chain []byte
	for _, der := range cert.Certificate {
		chain = append(chain, CertPEM(der)...)
	}
	files := []struct {
		path string
		data []byte
	}{{f.Cert, chain}, {f.Key, key}}
	if ca != nil {
		f.CA = filepath.Join(dir, "ca.pem")
		files = append(files, struct {
			path string
			data []byte
		}{f.CA, CertPEM(ca.Cert.Raw)})
	}
	for _, w := range files {
		if err := os.WriteFile(w.path, w.data, 0o600); err != nil {
			return f, err
		}
	}
	return f, nil
}

// Throwaway makes a certificate authority and a leaf for hosts, and
// writes them into dir (name.pem, name-key.pem, ca.pem).
func Throwaway(dir, name string, hosts ...string) (*CA, tls.Certificate, Files, error) {
	ca, err := NewCA(name + " CA")
	if err != nil {
		return nil, tls.Certificate{}, Files{}, err
	}
	cert, err := ca.Issue(hosts...)
	if err != nil {
		return nil, tls.Certificate{}, Files{}, err
	}
	files, err := WriteFiles(dir, name, cert, ca)
	return ca, cert, files, err
}
