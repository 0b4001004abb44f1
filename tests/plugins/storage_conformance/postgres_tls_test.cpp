// The postgres plugin's TLS options (sslmode, sslrootcert, sslcert, sslkey)
// against a TLS-enabled throw-away cluster of this suite's own
// (tests/postgres/pg_cluster with MGW_PG_TLS_DIR), with certificates the test
// makes with the openssl CLI: a CA, a server certificate for 127.0.0.1 signed
// by it, a client certificate signed by it, and a second, unrelated CA with a
// client certificate of its own. What is checked is what the server saw (its
// pg_stat_ssl), not only that the plugin said yes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "postgres_fixture.h"
#include "throwaway_cluster.h"

namespace storage_test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// Put in the DSNs of the refused cases: trust authentication never asks for
// it, so it can only reach an error text by being copied there.
constexpr const char* kTlsPassword = "tls-s3cret-pw";

std::string file_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `command` through the shell, bounded by coreutils' timeout, its output
// appended to `log`. Throws with the log's text when it fails.
void run_bounded(const std::string& command, int seconds, const fs::path& log) {
  const std::string line =
      "timeout " + std::to_string(seconds) + " " + command + " >>" + shell_quote(log.string()) + " 2>&1";
  if (std::system(line.c_str()) != 0) throw std::runtime_error("failed: " + command + "\n" + file_text(log));
}

// A temporary folder, removed with everything in it at the end of its scope.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "mgw_pg_tls_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The certificates, made with the openssl CLI (P-256 keys: quick to make).
// `server_dir()` is what MGW_PG_TLS_DIR wants: server.crt, server.key and
// ca.crt (so the server verifies the client certificates it is sent).
class Pki {
 public:
  explicit Pki(const fs::path& dir) : dir_(dir), log_(dir / "openssl.log") {
    fs::create_directories(server_dir());
    self_signed_ca("ca", "mgw-test-ca");
    self_signed_ca("other_ca", "mgw-unrelated-ca");
    signed_by("ca", "server", "127.0.0.1",
              "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n");
    signed_by("ca", "client", "modelgw", "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n");
    signed_by("other_ca", "stranger", "modelgw", "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n");
    for (const char* name : {"server.crt", "server.key", "ca.crt"})
      fs::copy_file(dir_ / name, server_dir() / name);
    // libpq refuses a client key that others can read.
    for (const char* key : {"client.key", "stranger.key"})
      fs::permissions(dir_ / key, fs::perms::owner_read | fs::perms::owner_write);
  }

  fs::path server_dir() const { return dir_ / "server_tls"; }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

 private:
  void openssl(const std::string& args) { run_bounded("openssl " + args, 60, log_); }

  void self_signed_ca(const std::string& name, const std::string& cn) {
    openssl("req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=" + cn +
            " -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign" +
            " -keyout " + shell_quote(file(name + ".key")) + " -out " + shell_quote(file(name + ".crt")));
  }

  void signed_by(const std::string& ca, const std::string& name, const std::string& cn,
                 const std::string& extensions) {
    const std::string ext = file(name + ".ext");
    std::ofstream(ext) << extensions;
    openssl("req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=" + cn + " -keyout " +
            shell_quote(file(name + ".key")) + " -out " + shell_quote(file(name + ".csr")));
    openssl("x509 -req -days 2 -set_serial " + std::to_string(++serial_) + " -in " +
            shell_quote(file(name + ".csr")) + " -CA " + shell_quote(file(ca + ".crt")) + " -CAkey " +
            shell_quote(file(ca + ".key")) + " -extfile " + shell_quote(ext) + " -out " +
            shell_quote(file(name + ".crt")));
  }

  fs::path dir_, log_;
  int serial_ = 1;
};

// A throw-away cluster serving TLS with `pki`'s server certificate (plain
// connections are accepted too).
class TlsCluster : public ThrowAwayCluster {
 public:
  explicit TlsCluster(const Pki& pki)
      : ThrowAwayCluster("MGW_PG_TLS_DIR=" + shell_quote(pki.server_dir().string())) {}
};

// Everything the suite's tests share, made once (a cluster takes seconds to start).
struct TlsWorld {
  TempDir temp;
  Pki pki{temp.path()};
  TlsCluster cluster{pki};
};

class PostgresTlsTest : public ::testing::Test {
 protected:
  // A failure to make the world fails the test that needed it, saying why.
  void SetUp() override {
    h();
    if (!world_) world_ = std::make_unique<TlsWorld>();
  }
  static void TearDownTestSuite() { world_.reset(); }

  const mgw_storage_hooks& h() const { return backend(BackendKind::postgres).hooks(); }
  const Pki& pki() const { return world_->pki; }
  const TlsCluster& cluster() const { return world_->cluster; }

  // JSON members for storage.options: sslmode and the files given.
  std::string tls(const std::string& mode, const std::string& rootcert = {}, const std::string& cert = {},
                  const std::string& key = {}) const {
    std::string out = "\"sslmode\": " + nlohmann::json(mode).dump();
    if (!rootcert.empty()) out += ", \"sslrootcert\": " + nlohmann::json(pki().file(rootcert)).dump();
    if (!cert.empty()) out += ", \"sslcert\": " + nlohmann::json(pki().file(cert)).dump();
    if (!key.empty()) out += ", \"sslkey\": " + nlohmann::json(pki().file(key)).dump();
    return out + ", \"connect_timeout_ms\": 3000";
  }

  // The open must be refused with `status`, promptly, creating nothing and
  // never showing kTlsPassword (in the error or in a log line). Returns the error.
  std::string refused(const std::string& config, mgw_status status, PostgresDatabase& db) {
    const size_t logs_before = host().logs().size();
    const auto start = std::chrono::steady_clock::now();
    auto result = open_storage(h(), config);
    EXPECT_LT(ms_since(start), 15'000) << "connect_timeout_ms must bound the attempt";
    EXPECT_EQ(result.status, status) << result.error;
    EXPECT_EQ(result.storage, nullptr);
    if (result.storage != nullptr) h().on_storage_close(result.storage);
    EXPECT_THAT(result.error, Not(IsEmpty()));
    EXPECT_THAT(result.error, Not(HasSubstr(kTlsPassword)));
    const auto logs = host().logs();
    for (size_t i = logs_before; i < logs.size(); ++i)
      EXPECT_THAT(logs[i].second, Not(HasSubstr(kTlsPassword)));
    EXPECT_EQ(
        db.admin().integer("SELECT count(*) FROM pg_namespace WHERE nspname = " + quote_literal(db.schema())),
        0)
        << "a refused open must create nothing";
    return result.error;
  }

  // The plugin's connections as the server sees them (application_name is
  // the schema's name): how many use TLS, how many do not.
  static int64_t plugin_connections(PostgresDatabase& db, bool ssl) {
    return db.admin().integer(
        "SELECT count(*) FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.application_name = " +
        quote_literal(db.schema()) + " AND s.ssl = " + (ssl ? "true" : "false"));
  }

  // A tenant `name` made and found again through the handle.
  void works(mgw_storage* storage, const std::string& name = "acme") {
    int64_t id = 0;
    mgw::testing::TextRecorder error;
    ASSERT_EQ(h().on_tenant_create(storage, mgw::str(name), 1, &id, &error.sink), MGW_OK) << error.text;
    RowRecorder rows;
    ASSERT_EQ(h().on_tenant_find(storage, mgw::str(name), &rows.sink, &error.sink), MGW_OK) << error.text;
  }

  static std::unique_ptr<TlsWorld> world_;
};

std::unique_ptr<TlsWorld> PostgresTlsTest::world_;

TEST_F(PostgresTlsTest, VerifyFullWithTheRightCaOpensWorksAndTheConnectionsAreTls) {
  PostgresDatabase db(current_test_name(), cluster().dsn());
  {
    Storage storage(h(), db.config(tls("verify-full", "ca.crt")));
    works(storage.get());
    EXPECT_GT(plugin_connections(db, true), 0) << "the plugin's connections must use TLS";
    EXPECT_EQ(plugin_connections(db, false), 0);
  }
  // A libpq connection made with the same options reports TLS from inside.
  PgAdmin same(
      dsn_with(dsn_with(cluster().dsn(), "sslmode", "verify-full"), "sslrootcert", pki().file("ca.crt")));
  EXPECT_EQ(same.text("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"), "t");
}

TEST_F(PostgresTlsTest, SslmodeOptionOverridesTheDsnsSslmodeDisable) {
  PostgresDatabase db(current_test_name(), dsn_with(cluster().dsn(), "sslmode", "disable"));
  Storage storage(h(), db.config(tls("verify-full", "ca.crt")));
  works(storage.get());
  EXPECT_GT(plugin_connections(db, true), 0);
  EXPECT_EQ(plugin_connections(db, false), 0) << "the DSN's sslmode=disable won over the option";
}

TEST_F(PostgresTlsTest, VerifyFullWithAnUnrelatedCaIsUnavailableNamingTheCertificate) {
  PostgresDatabase db(current_test_name(), cluster().dsn());
  const std::string dsn =
      "postgresql://modelgw:" + std::string(kTlsPassword) + "@127.0.0.1:" + cluster().port() + "/modelgw";
  const std::string config = "{\"dsn\": " + nlohmann::json(dsn).dump() + ", \"schema\": \"" + db.schema() +
                             "\", \"pool_size\": 2, " + tls("verify-full", "other_ca.crt") + "}";
  EXPECT_THAT(refused(config, MGW_UNAVAILABLE, db), HasSubstr("certificate"));
}

TEST_F(PostgresTlsTest, VerifyFullRefusesAHostNameTheCertificateDoesNotNameWhileVerifyCaTakesIt) {
  // Connects to 127.0.0.1 (hostaddr) but checks the certificate against
  // "localhost", which it does not name: only verify-full cares.
  const std::string dsn = "postgresql://modelgw:" + std::string(kTlsPassword) +
                          "@localhost:" + cluster().port() + "/modelgw?hostaddr=127.0.0.1";
  PostgresDatabase db(current_test_name(), cluster().dsn());
  const std::string head = "{\"dsn\": " + nlohmann::json(dsn).dump() + ", \"schema\": \"" + db.schema() +
                           "\", \"application_name\": \"" + db.schema() + "\", \"pool_size\": 2, ";
  EXPECT_THAT(refused(head + tls("verify-full", "ca.crt") + "}", MGW_UNAVAILABLE, db),
              HasSubstr("localhost"));
  Storage storage(h(), head + tls("verify-ca", "ca.crt") + "}");
  works(storage.get());
  EXPECT_GT(plugin_connections(db, true), 0);
}

TEST_F(PostgresTlsTest, RequireAgainstAPlainServerIsUnavailable) {
  PostgresDatabase db(current_test_name());  // the shared test cluster: no TLS
  const std::string dsn = dsn_with(test_cluster_dsn(), "password", kTlsPassword);
  const std::string config = "{\"dsn\": " + nlohmann::json(dsn).dump() + ", \"schema\": \"" + db.schema() +
                             "\", \"pool_size\": 2, " + tls("require") + "}";
  EXPECT_THAT(refused(config, MGW_UNAVAILABLE, db), HasSubstr("SSL"));
}

TEST_F(PostgresTlsTest, SslcertAndSslkeyPresentTheClientCertificate) {
  PostgresDatabase db(current_test_name(), cluster().dsn());
  {
    Storage storage(h(), db.config(tls("verify-full", "ca.crt", "client.crt", "client.key")));
    works(storage.get());
    // The server (ssl_ca_file set) verified the certificate it was sent.
    const auto dns = db.admin().column(
        "SELECT coalesce(s.client_dn, '') FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) "
        "WHERE a.application_name = " +
        quote_literal(db.schema()));
    ASSERT_THAT(dns, Not(IsEmpty()));
    for (const auto& dn : dns) EXPECT_EQ(dn, "/CN=modelgw");
  }
  // Without the options, no client certificate is sent.
  Storage plain(h(), db.config(tls("verify-full", "ca.crt")));
  works(plain.get(), "beta");
  EXPECT_EQ(db.admin().integer("SELECT count(*) FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) "
                               "WHERE s.client_dn IS NOT NULL AND a.application_name = " +
                               quote_literal(db.schema())),
            0);
}

TEST_F(PostgresTlsTest, AClientCertificateFromAnUnrelatedCaIsRefusedByTheServer) {
  PostgresDatabase db(current_test_name(), cluster().dsn());
  const std::string dsn =
      "postgresql://modelgw:" + std::string(kTlsPassword) + "@127.0.0.1:" + cluster().port() + "/modelgw";
  const std::string config = "{\"dsn\": " + nlohmann::json(dsn).dump() + ", \"schema\": \"" + db.schema() +
                             "\", \"pool_size\": 2, " +
                             tls("verify-full", "ca.crt", "stranger.crt", "stranger.key") + "}";
  EXPECT_THAT(refused(config, MGW_UNAVAILABLE, db), HasSubstr("SSL"));
}

TEST_F(PostgresTlsTest, AnSslmodeLibpqDoesNotKnowIsInvalidArgumentNamingSslmode) {
  PostgresDatabase db(current_test_name(), cluster().dsn());
  for (const std::string mode : {"verify_full", "VERIFY-FULL", "on", "", "require "}) {
    SCOPED_TRACE("sslmode '" + mode + "'");
    EXPECT_THAT(refused(db.config("\"sslmode\": " + nlohmann::json(mode).dump()), MGW_INVALID_ARGUMENT, db),
                HasSubstr("storage.options.sslmode"));
  }
  EXPECT_THAT(refused(db.config("\"sslmode\": true"), MGW_INVALID_ARGUMENT, db),
              HasSubstr("storage.options.sslmode"));
  EXPECT_THAT(refused(db.config("\"sslrootcert\": \"\""), MGW_INVALID_ARGUMENT, db),
              HasSubstr("storage.options.sslrootcert"));
}

}  // namespace
}  // namespace storage_test
