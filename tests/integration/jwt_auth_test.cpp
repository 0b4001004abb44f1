// JWTs from a real OAuth 2.0 identity provider (tests/idp, started by
// harness/idp.h): tokens a client gets from the IdP's /token chat and are
// attributed to their tenant; a missing scope or an unknown tenant is 403;
// every malformed, forged or out-of-date token is 401 without being echoed or
// logged; an IdP outage past the keyset's TTL is 503 jwks_unavailable while
// API keys keep working, and the gateway recovers when the IdP is back;
// unknown kids cannot make the gateway hammer the IdP.
#include "harness/checks.h"
#include "harness/idp.h"
#include "harness/stack.h"

#include <Poco/Base64Decoder.h>
#include <Poco/Base64Encoder.h>

#include <ctime>
#include <iterator>
#include <random>
#include <sstream>
#include <thread>

namespace it {
namespace {

using namespace std::chrono_literals;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

struct JwtSettings {
  int jwks_max_age_s = 300;                  // what the IdP's /jwks says in Cache-Control
  int jwks_refresh_min_interval_ms = 10000;  // unknown kids and failed fetches
  int max_token_bytes = 8192;
};

// Every auth: key of the JWT configuration except key_cache_ttl_ms (the harness writes it).
std::string jwt_auth_yaml(const IdentityProvider& idp, const JwtSettings& s) {
  std::ostringstream y;
  y << "  jwks_url: \"" << idp.jwks_url() << "\"\n"
    << "  issuer: \"" << idp.issuer() << "\"\n"
    << "  audience: \"modelgw\"\n"
    << "  tenant_claim: \"tenant\"\n"
    << "  scope_claim: \"scope\"\n"
    << "  leeway_s: 60\n"
    << "  algorithms: [RS256, ES256]\n"
    << "  jwks_timeout_ms: 1000\n"
    << "  jwks_default_ttl_ms: 300000\n"
    << "  jwks_max_ttl_ms: 3600000\n"
    << "  jwks_refresh_min_interval_ms: " << s.jwks_refresh_min_interval_ms << "\n"
    << "  max_token_bytes: " << s.max_token_bytes << "\n";
  return y.str();
}

// The IdP, then a fake upstream and a gateway that trusts it (tenant "acme"
// and an API key for it). Members are destroyed bottom-up: gateway first.
struct JwtStack {
  std::unique_ptr<IdentityProvider> idp;
  std::unique_ptr<Stack> stack;

  int port() const { return stack->port(); }
  Gateway& gateway() const { return *stack->gateway; }
};

std::unique_ptr<JwtStack> start_jwt_stack(const JwtSettings& settings) {
  auto env = std::make_unique<JwtStack>();
  env->idp = std::make_unique<IdentityProvider>(IdentityProviderOptions{settings.jwks_max_age_s});
  GatewayOptions options;
  options.extra_auth_yaml = jwt_auth_yaml(*env->idp, settings);
  env->stack = start_stack(std::move(options));
  return env;
}

const std::string kHello = chat_body("gpt-4o-mini", "jwt hello");

std::vector<std::string> segments(const std::string& token) {
  std::vector<std::string> out(1);
  for (char c : token) {
    if (c == '.') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::string base64url(const std::string& text) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out, Poco::BASE64_URL_ENCODING | Poco::BASE64_NO_PADDING);
  encoder.rdbuf()->setLineLength(0);
  encoder << text;
  encoder.close();
  return out.str();
}

std::string base64url_decode(std::string text) {
  text.append((4 - text.size() % 4) % 4, '=');
  std::istringstream in(text);
  Poco::Base64Decoder decoder(in, Poco::BASE64_URL_ENCODING);
  return std::string(std::istreambuf_iterator<char>(decoder), std::istreambuf_iterator<char>());
}

// Whether `text` repeats the token, or its signature alone (long enough to
// mean something: a crafted token may have an empty or tiny one).
bool mentions_token(const std::string& text, const std::string& token) {
  if (text.find(token) != std::string::npos) return true;
  const auto parts = segments(token);
  return parts.size() >= 3 && parts[2].size() >= 16 && text.find(parts[2]) != std::string::npos;
}

std::int64_t now_s() {
  return static_cast<std::int64_t>(std::time(nullptr));
}

std::string random_hex(std::size_t n) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += kHex[rng() % 16];
  return out;
}

// The 401 every bad token gets, with neither the token nor its signature in the answer.
::testing::AssertionResult IsRefusedToken(const HttpResponse& r, const std::string& token) {
  auto envelope = IsApiError(r, 401, "authentication_error", "invalid_api_key");
  if (!envelope) return envelope;
  if (mentions_token(r.body, token)) {
    return ::testing::AssertionFailure() << "the 401 repeats the token or its signature: " << r.body;
  }
  return ::testing::AssertionSuccess();
}

// Calls `call` every `every` until it returns a non-200 answer or `within` passes.
template <typename Call>
HttpResponse first_non_200(Call call, std::chrono::milliseconds every, std::chrono::milliseconds within) {
  const auto deadline = Clock::now() + within;
  HttpResponse last;
  do {
    last = call();
    if (last.status != 200) break;
    std::this_thread::sleep_for(every);
  } while (Clock::now() < deadline);
  return last;
}

// ---------------------------------------------------------------------------
// One gateway that trusts the IdP, shared by the suite. Every token a test
// sends goes through send(), so the last test can check that the log never
// held one.
// ---------------------------------------------------------------------------

class JwtAuthTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    try {
      // max_token_bytes below POCO's 8 KiB header limit, so a 6 KB token
      // reaches the gateway's own size check.
      env_ = start_jwt_stack(JwtSettings{.max_token_bytes = 4096});
      env_->gateway().create_tenant("globex");
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  static void TearDownTestSuite() { env_.reset(); }

 protected:
  void SetUp() override { ASSERT_NE(env_, nullptr) << "suite setup failed: " << setup_error_; }

  static IdentityProvider& idp() { return *env_->idp; }
  static Stack& stack() { return *env_->stack; }
  static int port() { return env_->port(); }

  static HttpResponse send(const std::string& token, const std::string& body = kHello) {
    sent_tokens_.push_back(token);
    return post_chat(port(), token, body);
  }
  static HttpResponse send_models(const std::string& token) {
    sent_tokens_.push_back(token);
    return http_get(port(), "/v1/models", token);
  }
  // Valid claims for tenant acme with one member replaced (or removed: null).
  static json claims_with(const std::string& member, const json& value) {
    json claims = idp().valid_claims("acme");
    if (value.is_null()) {
      claims.erase(member);
    } else {
      claims[member] = value;
    }
    return claims;
  }

  static inline std::unique_ptr<JwtStack> env_;
  static inline std::string setup_error_;
  static inline std::vector<std::string> sent_tokens_;
};

// --- tokens from /token ------------------------------------------------------

TEST_F(JwtAuthTest, Rs256TokenFromTokenEndpointChatsAndIsAttributedToItsTenant) {
  const auto r = send(idp().token("acme", "chat", "RS256"), chat_body("gpt-4o-mini", "jwt rs256"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["choices"][0]["message"]["content"], "echo: jwt rs256");

  const auto db = stack().usage();
  const auto record = db.wait_for(r.header("x-request-id"));
  ASSERT_TRUE(record) << "no usage record for " << r.header("x-request-id");
  EXPECT_EQ(record->tenant_id, db.tenant_id("acme").value_or(-1));
  EXPECT_EQ(record->http_status, 200);
}

TEST_F(JwtAuthTest, Es256TokenFromTokenEndpointChatsAndIsAttributedToItsTenant) {
  // Tenant globex, so the attribution cannot be a default tenant's.
  const auto r = send(idp().token("globex", "chat", "ES256"), chat_body("gpt-4o-mini", "jwt es256"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["choices"][0]["message"]["content"], "echo: jwt es256");

  const auto db = stack().usage();
  const auto record = db.wait_for(r.header("x-request-id"));
  ASSERT_TRUE(record) << "no usage record for " << r.header("x-request-id");
  const auto globex = db.tenant_id("globex");
  ASSERT_TRUE(globex);
  EXPECT_EQ(record->tenant_id, *globex);
  EXPECT_NE(record->tenant_id, db.tenant_id("acme").value_or(-1));
}

TEST_F(JwtAuthTest, StreamedChatWorksWithAJwt) {
  const std::string token = idp().token("acme");
  sent_tokens_.push_back(token);
  const auto s = stream_chat(port(), token, chat_body("gpt-4o-mini", "jwt stream", true));
  ASSERT_EQ(s.status, 200) << s.body;
  const auto summary = summarize(s.events);
  EXPECT_EQ(summary.content, "echo: jwt stream");
  EXPECT_TRUE(summary.done_last);
}

TEST_F(JwtAuthTest, ModelsListNeedsChatScopeLikeChat) {
  EXPECT_EQ(send_models(idp().token("acme", "chat")).status, 200);
  EXPECT_TRUE(IsApiError(send_models(idp().token("acme", "usage:read")), 403, "authentication_error",
                         "permission_denied"));
}

TEST_F(JwtAuthTest, ApiKeysStillWorkBesideJwts) {
  EXPECT_EQ(post_chat(port(), stack().key.key, kHello).status, 200);
}

// --- scopes and tenants -----------------------------------------------------

TEST_F(JwtAuthTest, TokenWithoutChatScopeIs403) {
  EXPECT_TRUE(
      IsApiError(send(idp().token("acme", "usage:read")), 403, "authentication_error", "permission_denied"));
  EXPECT_TRUE(IsApiError(send(idp().token("acme", "chatty chat:read")), 403, "authentication_error",
                         "permission_denied"))
      << "scopes are whole words";
}

TEST_F(JwtAuthTest, AdminScopeCountsAsChat) {
  const auto r = send(idp().token("acme", "admin"));
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_F(JwtAuthTest, ScopeClaimMayBeAnArray) {
  const auto r = send(idp().sign({}, claims_with("scope", json::array({"usage:read", "chat"}))));
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_F(JwtAuthTest, AudienceMayBeAnArrayContainingOurs) {
  const auto r = send(idp().sign({}, claims_with("aud", json::array({"another-api", "modelgw"}))));
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_F(JwtAuthTest, TenantUnknownToTheGatewayIs403) {
  // The IdP vouches for "initech", but the gateway has no such tenant.
  EXPECT_TRUE(IsApiError(send(idp().token("initech")), 403, "authentication_error", "permission_denied"));
}

TEST_F(JwtAuthTest, MissingTenantClaimIs401) {
  const std::string token = idp().sign({}, claims_with("tenant", nullptr));
  EXPECT_TRUE(IsRefusedToken(send(token), token));
}

// --- time and leeway --------------------------------------------------------

TEST_F(JwtAuthTest, ExpiredBeyondLeewayIs401) {
  json claims = idp().valid_claims("acme");
  claims["iat"] = now_s() - 7200;
  claims["nbf"] = now_s() - 7200;
  claims["exp"] = now_s() - 3600;
  const std::string token = idp().sign({}, claims);
  EXPECT_TRUE(IsRefusedToken(send(token), token));
}

TEST_F(JwtAuthTest, ExpiredWithinLeewayIsAccepted) {
  json claims = idp().valid_claims("acme");
  claims["iat"] = now_s() - 600;
  claims["nbf"] = now_s() - 600;
  claims["exp"] = now_s() - 20;  // leeway_s is 60
  const auto r = send(idp().sign({}, claims));
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_F(JwtAuthTest, NotBeforeInTheFutureIs401) {
  const std::string token = idp().sign({}, claims_with("nbf", now_s() + 3600));
  EXPECT_TRUE(IsRefusedToken(send(token), token));
}

TEST_F(JwtAuthTest, NotBeforeWithinLeewayIsAccepted) {
  const auto r = send(idp().sign({}, claims_with("nbf", now_s() + 20)));
  EXPECT_EQ(r.status, 200) << r.body;
}

// --- issuer, audience, signature, algorithm, kid --------------------------

TEST_F(JwtAuthTest, WrongIssuerIs401) {
  const std::string token = idp().sign({}, claims_with("iss", "http://127.0.0.1:9/another-issuer"));
  EXPECT_TRUE(IsRefusedToken(send(token), token));
}

TEST_F(JwtAuthTest, WrongAudienceIs401) {
  for (const json& aud : {json("another-api"), json::array({"another-api", "modelgw-staging"})}) {
    const std::string token = idp().sign({}, claims_with("aud", aud));
    EXPECT_TRUE(IsRefusedToken(send(token), token)) << "aud " << aud.dump();
  }
}

TEST_F(JwtAuthTest, FlippedSignatureByteIs401) {
  for (const char* alg : {"RS256", "ES256"}) {
    auto parts = segments(idp().token("acme", "chat", alg));
    ASSERT_EQ(parts.size(), 3u);
    char& c = parts[2][parts[2].size() / 2];  // a middle character: all six of its bits are signature
    c = c == 'A' ? 'B' : 'A';
    const std::string token = parts[0] + "." + parts[1] + "." + parts[2];
    EXPECT_TRUE(IsRefusedToken(send(token), token)) << alg;
  }
}

TEST_F(JwtAuthTest, AlgNoneIs401) {
  const std::string token = idp().sign({{"alg", "none"}}, idp().valid_claims("acme"));
  ASSERT_EQ(token.back(), '.') << "an unsigned token ends with an empty signature";
  EXPECT_TRUE(IsRefusedToken(send(token), token));
}

TEST_F(JwtAuthTest, Hs256SignedWithThePublicKeyIs401) {
  // The RSA kid and the RSA public key (PEM) as the HMAC secret: the classic confusion.
  const std::string token = idp().sign({{"alg", "HS256"}}, idp().valid_claims("acme"));
  EXPECT_TRUE(IsRefusedToken(send(token), token));
}

TEST_F(JwtAuthTest, KidNotInKeysetIs401) {
  const std::string token =
      idp().sign({{"kid", "kid-not-in-keyset-" + random_hex(12)}}, idp().valid_claims("acme"));
  EXPECT_TRUE(IsRefusedToken(send(token), token));
}

TEST_F(JwtAuthTest, RsaKidWithEs256HeaderIs401) {
  // A valid ES256 signature (by the EC key) under the RSA key's kid.
  const std::string token =
      idp().sign({{"alg", "ES256"}, {"kid", idp().kid("RS256")}}, idp().valid_claims("acme"));
  EXPECT_TRUE(IsRefusedToken(send(token), token));
}

// --- malformed tokens -------------------------------------------------------

TEST_F(JwtAuthTest, TwoSegmentsIs401) {
  const auto parts = segments(idp().token("acme"));
  const std::string token = parts[0] + "." + parts[1];
  EXPECT_TRUE(IsRefusedToken(send(token), token));
}

TEST_F(JwtAuthTest, FourSegmentsIs401) {
  const std::string token = idp().token("acme") + "." + base64url("{}");
  EXPECT_TRUE(IsRefusedToken(send(token), token));
}

TEST_F(JwtAuthTest, BadBase64Is401) {
  auto parts = segments(idp().token("acme"));
  parts[0].insert(parts[0].size() / 2, "*");
  const std::string header_bad = parts[0] + "." + parts[1] + "." + parts[2];
  EXPECT_TRUE(IsRefusedToken(send(header_bad), header_bad));

  parts = segments(idp().token("acme"));
  parts[1].insert(parts[1].size() / 2, "!");
  const std::string payload_bad = parts[0] + "." + parts[1] + "." + parts[2];
  EXPECT_TRUE(IsRefusedToken(send(payload_bad), payload_bad));
}

TEST_F(JwtAuthTest, NonJsonHeaderIs401) {
  const auto parts = segments(idp().token("acme"));
  const std::string token = base64url("not a json header") + "." + parts[1] + "." + parts[2];
  EXPECT_TRUE(IsRefusedToken(send(token), token));
}

TEST_F(JwtAuthTest, TokenOverMaxTokenBytesIs401) {
  // ~6 KB: past max_token_bytes (4096 here), within POCO's 8 KiB header limit.
  const std::string token = idp().sign({}, claims_with("padding", std::string(4300, 'p')));
  ASSERT_GT(token.size(), 5000u);
  ASSERT_LT(token.size(), 8000u);
  EXPECT_TRUE(IsRefusedToken(send(token), token));
}

// POCO's request parser stops at a header value over 8192 bytes, before the
// gateway can tell which header it was; the gateway's own connection loop
// (core/src/http/server.cpp) then answers 400 in the envelope rather than
// POCO's empty 400. Tokens up to that size get 401 (TokenOverMaxTokenBytesIs401).
TEST_F(JwtAuthTest, TwentyKilobyteTokenGetsTheEnvelopeAndIsNeverEchoed) {
  const std::string token = idp().sign({}, claims_with("padding", std::string(15000, 'p')));
  ASSERT_GE(token.size(), 20000u);
  const auto r = send(token);
  EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "invalid_parameter")) << r.body;
  EXPECT_NE(r.body.find("8192"), std::string::npos) << r.body;
  EXPECT_FALSE(mentions_token(r.body, token)) << r.body;
  EXPECT_EQ(ascii_lower(r.header("connection")), "close");
}

// Runs last: after every token above was sent, none of them (nor a signature)
// is in the log. Under ctest each test has its own process and gateway, so
// this then checks only its own token.
TEST_F(JwtAuthTest, ZzLogNeverContainsATokenOrItsSignature) {
  const auto last = send(idp().token("acme"));
  ASSERT_EQ(last.status, 200) << last.body;
  ASSERT_TRUE(stack().gateway->wait_log(last.header("x-request-id"), 5s)) << stack().gateway->log();
  const std::string log = stack().gateway->log();
  for (const auto& token : sent_tokens_) {
    EXPECT_FALSE(mentions_token(log, token)) << "the gateway log holds a token or its signature: " << token;
  }
}

// ---------------------------------------------------------------------------
// A gateway without auth.jwks_url
// ---------------------------------------------------------------------------

TEST(JwtDisabledTest, JwtIs401SayingJwtsAreNotEnabled) {
  IdentityProvider idp;
  auto stack = start_stack();  // no extra_auth_yaml: JWTs disabled
  const std::string token = idp.token("acme");

  const auto r = post_chat(stack->port(), token, kHello);
  ASSERT_TRUE(IsApiError(r, 401, "authentication_error", "invalid_api_key"));
  const std::string message = ascii_lower(r.json()["error"]["message"].get<std::string>());
  EXPECT_NE(message.find("jwt"), std::string::npos) << message;
  EXPECT_NE(message.find("not enabled"), std::string::npos) << message;
  EXPECT_FALSE(mentions_token(r.body, token)) << r.body;
  // API keys are unaffected.
  EXPECT_EQ(post_chat(stack->port(), stack->key.key, kHello).status, 200);
  EXPECT_FALSE(mentions_token(stack->gateway->log(), token));
}

// ---------------------------------------------------------------------------
// IdP outage: cached keys until the keyset's TTL, then 503, then recovery
// ---------------------------------------------------------------------------

TEST(JwtOutageTest, CachedKeysUntilTtlThen503ThenRecoveryWithoutRestart) {
  auto env = start_jwt_stack(JwtSettings{.jwks_max_age_s = 2, .jwks_refresh_min_interval_ms = 200});
  IdentityProvider& idp = *env->idp;
  const int port = env->port();
  const std::string api_key = env->stack->key.key;
  const std::string rs_token = idp.token("acme", "chat", "RS256");
  const std::string es_token = idp.token("acme", "chat", "ES256");

  // Keys fetched and cached.
  ASSERT_EQ(post_chat(port, rs_token, kHello).status, 200);
  ASSERT_GE(idp.jwks_requests(), 1) << "the gateway never fetched the keyset";

  idp.stop();
  const auto stopped = Clock::now();
  // Inside the 2 s TTL the cached keys still verify.
  const auto cached = post_chat(port, rs_token, kHello);
  EXPECT_EQ(cached.status, 200) << "within the TTL after the outage began: " << cached.body;
  EXPECT_EQ(post_chat(port, api_key, kHello).status, 200);

  // Past the TTL (max-age 2 s), with the IdP unreachable: 503, never the stale keys.
  const auto refused = first_non_200([&] { return post_chat(port, rs_token, kHello); }, 100ms, 6s);
  EXPECT_TRUE(IsApiError(refused, 503, "api_error", "jwks_unavailable"))
      << "after " << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - stopped).count()
      << " ms without the IdP";
  EXPECT_FALSE(mentions_token(refused.body, rs_token)) << refused.body;
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(300ms);  // past jwks_refresh_min_interval_ms: each may retry the fetch
    EXPECT_TRUE(IsApiError(post_chat(port, rs_token, kHello), 503, "api_error", "jwks_unavailable"));
    EXPECT_TRUE(IsApiError(post_chat(port, es_token, kHello), 503, "api_error", "jwks_unavailable"));
  }
  // API keys do not depend on the IdP.
  EXPECT_EQ(post_chat(port, api_key, kHello).status, 200);

  // Same port, same keys: the gateway picks the keyset up again by itself.
  idp.restart();
  const auto deadline = Clock::now() + 5s;
  HttpResponse recovered;
  do {
    recovered = post_chat(port, rs_token, kHello);
    if (recovered.status == 200) break;
    std::this_thread::sleep_for(100ms);
  } while (Clock::now() < deadline);
  EXPECT_EQ(recovered.status, 200) << "no recovery within 5 s of the IdP's restart: " << recovered.body;
  EXPECT_EQ(post_chat(port, es_token, kHello).status, 200);

  // The outage is in the gateway's own audit chain: one event when it began
  // (however many requests it refused), one when it ended.
  const std::string admin = env->gateway().create_key("acme", "admin").key;
  json recovered_events;
  EXPECT_TRUE(eventually([&] {
    recovered_events = http_get(port, "/internal/v1/audit?action=keyset.recovered", admin).json();
    return recovered_events.contains("data") && !recovered_events["data"].empty();
  }));
  EXPECT_EQ(recovered_events["data"].size(), 1u) << recovered_events.dump();
  const json outages = http_get(port, "/internal/v1/audit?action=keyset.unavailable", admin).json();
  ASSERT_EQ(outages["data"].size(), 1u) << outages.dump();
  EXPECT_EQ(outages["data"][0]["actor"], "gateway");
  EXPECT_LT(outages["data"][0]["seq"], recovered_events["data"][0]["seq"]);

  const std::string log = env->gateway().log();
  EXPECT_FALSE(mentions_token(log, rs_token));
  EXPECT_FALSE(mentions_token(log, es_token));
}

// ---------------------------------------------------------------------------
// Unknown kids do not turn into keyset fetches
// ---------------------------------------------------------------------------

TEST(JwtKidFloodTest, FiftyUnknownKidsCauseAtMostTwoJwksFetches) {
  auto env = start_jwt_stack(JwtSettings{.jwks_refresh_min_interval_ms = 60000});
  IdentityProvider& idp = *env->idp;
  const int port = env->port();
  ASSERT_EQ(post_chat(port, idp.token("acme"), kHello).status, 200);

  constexpr int kFlood = 50;
  const json claims = idp.valid_claims("acme");
  for (int i = 0; i < kFlood; ++i) {
    const std::string token =
        idp.sign({{"kid", "flood-" + std::to_string(i) + "-" + random_hex(16)}}, claims);
    ASSERT_TRUE(IsRefusedToken(post_chat(port, token, kHello), token)) << "token " << i;
  }
  EXPECT_LE(idp.jwks_requests(), 2) << "JWKS fetches since the IdP started, " << kFlood
                                    << " unknown kids included";
  // The cached keys were not dropped.
  EXPECT_EQ(post_chat(port, idp.token("acme", "chat", "ES256"), kHello).status, 200);
}

// ---------------------------------------------------------------------------
// The IdP itself, through the harness (needs no JWT support in the gateway)
// ---------------------------------------------------------------------------

TEST(JwtIdpHarnessTest, IssuesBothAlgsAndKeepsItsKeysAcrossRestart) {
  IdentityProvider idp(IdentityProviderOptions{.jwks_max_age_s = 7});
  const std::string rs_kid = idp.kid("RS256");
  const std::string es_kid = idp.kid("ES256");
  EXPECT_NE(rs_kid, es_kid);

  HttpRequest jwks;
  jwks.method = "GET";
  jwks.path = "/jwks";
  const auto published = http_call(idp.port(), jwks);
  ASSERT_EQ(published.status, 200);
  EXPECT_EQ(published.header("cache-control"), "public, max-age=7");
  EXPECT_EQ(idp.jwks_requests(), 3);  // kid() twice, then this one

  for (const char* alg : {"RS256", "ES256"}) {
    const auto parts = segments(idp.token("acme", "chat admin", alg));
    ASSERT_EQ(parts.size(), 3u) << alg;
    const json header = json::parse(base64url_decode(parts[0]), nullptr, false);
    const json claims = json::parse(base64url_decode(parts[1]), nullptr, false);
    EXPECT_EQ(header["alg"], alg);
    EXPECT_EQ(header["kid"], std::string(alg) == "RS256" ? rs_kid : es_kid);
    EXPECT_EQ(claims["iss"], idp.issuer());
    EXPECT_EQ(claims["aud"], "modelgw");
    EXPECT_EQ(claims["tenant"], "acme");
    EXPECT_EQ(claims["sub"], "acme");
    EXPECT_EQ(claims["scope"], "chat admin");
    EXPECT_GT(claims["exp"].get<std::int64_t>(), now_s());
  }

  const int port = idp.port();
  idp.stop();
  EXPECT_FALSE(idp.running());
  EXPECT_THROW(idp.kid("RS256"), std::exception) << "a stopped IdP must refuse connections";
  idp.restart();
  EXPECT_TRUE(idp.running());
  EXPECT_EQ(idp.port(), port);
  EXPECT_EQ(idp.kid("RS256"), rs_kid);
  EXPECT_EQ(idp.kid("ES256"), es_kid);
  EXPECT_EQ(idp.jwks_requests(), 2) << "the counters start again with the process";
}

}  // namespace
}  // namespace it
