// Throwaway certificates for TLS tests, made at test time with OpenSSL: a CA,
// a server certificate for 127.0.0.1/localhost signed by it, and a second,
// self-signed server certificate that no one trusts (to test rejection).
// Link the CMake target `fake_proxy_testing`.
#pragma once

#include <string>

namespace fake_proxy {

// Paths of the PEM files written by make_test_certs().
struct TestCerts {
  std::string ca_pem;                // CA certificate: what a client trusts
  std::string ca_key_pem;            // CA private key
  std::string server_cert_pem;       // leaf for IP:127.0.0.1 + DNS:localhost (CN 127.0.0.1), signed by the CA
  std::string server_key_pem;        // its private key
  std::string self_signed_cert_pem;  // same names, self-signed: no chain to the CA
  std::string self_signed_key_pem;   // its private key
};

// Creates `dir` if needed and writes ca.pem, ca.key, server.pem, server.key,
// self_signed.pem and self_signed.key into it (ECDSA P-256, SHA-256, valid
// from an hour ago for 30 days). Throws std::runtime_error on failure.
TestCerts make_test_certs(const std::string& dir);

}  // namespace fake_proxy
