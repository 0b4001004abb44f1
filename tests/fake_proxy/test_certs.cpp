#include "fake_proxy/test_certs.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>

namespace fake_proxy {
namespace {

constexpr long kValidFromSeconds = -3600;  // tolerate small clock differences
constexpr long kValidForSeconds = 30L * 24 * 3600;

template <auto Free>
struct Deleter {
  template <typename T>
  void operator()(T* p) const {
    Free(p);
  }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO_free_all>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION_free>>;

[[noreturn]] void fail(const std::string& what) {
  std::string detail;
  if (const unsigned long code = ERR_get_error(); code != 0) {
    char buffer[256];
    ERR_error_string_n(code, buffer, sizeof buffer);
    detail = std::string(": ") + buffer;
  }
  ERR_clear_error();
  throw std::runtime_error("make_test_certs: " + what + detail);
}

// ECDSA P-256: generated in microseconds, unlike RSA, and accepted by every
// TLS stack the tests use.
KeyPtr newKey() {
  KeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) fail("key generation failed");
  return key;
}

void addExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  ExtPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) fail(std::string("cannot add extension ") + value);
}

// A certificate for `key` named `commonName`, signed by `issuerKey` as
// `issuer` (nullptr: self-signed).
CertPtr newCert(EVP_PKEY* key, const char* commonName, X509* issuer, EVP_PKEY* issuerKey, bool isCa) {
  CertPtr cert(X509_new());
  if (!cert) fail("X509_new failed");
  std::uint64_t serial = 0;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(&serial), sizeof serial) != 1) fail("RAND_bytes failed");
  serial >>= 1;  // positive, as RFC 5280 asks
  if (X509_set_version(cert.get(), 2) != 1 ||
      ASN1_INTEGER_set_uint64(X509_get_serialNumber(cert.get()), serial) != 1 ||
      !X509_gmtime_adj(X509_getm_notBefore(cert.get()), kValidFromSeconds) ||
      !X509_gmtime_adj(X509_getm_notAfter(cert.get()), kValidForSeconds) ||
      X509_set_pubkey(cert.get(), key) != 1) {
    fail("cannot fill in the certificate");
  }
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>("modelgw tests"), -1, -1, 0) != 1 ||
      X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(commonName),
                                 -1, -1, 0) != 1) {
    fail("cannot set the subject name");
  }
  X509* signer = issuer ? issuer : cert.get();
  if (X509_set_issuer_name(cert.get(), X509_get_subject_name(signer)) != 1)
    fail("cannot set the issuer name");

  // The subject key identifier first: the authority key identifier of a
  // self-signed certificate is taken from it.
  addExtension(cert.get(), signer, NID_subject_key_identifier, "hash");
  addExtension(cert.get(), signer, NID_authority_key_identifier, "keyid:always");
  if (isCa) {
    addExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
    addExtension(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    addExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
    addExtension(cert.get(), signer, NID_key_usage, "critical,digitalSignature");
    addExtension(cert.get(), signer, NID_ext_key_usage, "serverAuth");
    // Clients match the IP entry (or, like POCO, the DNS name or CN).
    addExtension(cert.get(), signer, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost");
  }
  if (X509_sign(cert.get(), issuerKey ? issuerKey : key, EVP_sha256()) <= 0) fail("signing failed");
  return cert;
}

BioPtr openForWrite(const std::string& path) {
  BioPtr bio(BIO_new_file(path.c_str(), "w"));
  if (!bio) fail("cannot write " + path);
  return bio;
}

void writeCert(const std::string& path, X509* cert) {
  auto bio = openForWrite(path);
  if (PEM_write_bio_X509(bio.get(), cert) != 1) fail("cannot write " + path);
}

void writeKey(const std::string& path, EVP_PKEY* key) {
  auto bio = openForWrite(path);
  if (PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    fail("cannot write " + path);
  }
  std::error_code ec;  // best effort: these keys protect nothing
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::replace, ec);
}

}  // namespace

TestCerts make_test_certs(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("make_test_certs: cannot create " + dir + ": " + ec.message());
  const std::filesystem::path base(dir);
  TestCerts out{(base / "ca.pem").string(),          (base / "ca.key").string(),
                (base / "server.pem").string(),      (base / "server.key").string(),
                (base / "self_signed.pem").string(), (base / "self_signed.key").string()};

  const auto caKey = newKey();
  const auto caCert = newCert(caKey.get(), "modelgw test CA", nullptr, nullptr, true);
  const auto serverKey = newKey();
  const auto serverCert = newCert(serverKey.get(), "127.0.0.1", caCert.get(), caKey.get(), false);
  const auto rogueKey = newKey();
  const auto rogueCert = newCert(rogueKey.get(), "127.0.0.1", nullptr, nullptr, false);

  writeCert(out.ca_pem, caCert.get());
  writeKey(out.ca_key_pem, caKey.get());
  writeCert(out.server_cert_pem, serverCert.get());
  writeKey(out.server_key_pem, serverKey.get());
  writeCert(out.self_signed_cert_pem, rogueCert.get());
  writeKey(out.self_signed_key_pem, rogueKey.get());
  return out;
}

}  // namespace fake_proxy
