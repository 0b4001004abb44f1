#include "importer/litellm_deployment.h"

#include "importer/modelgw_yaml.h"

#include <modelgw/pricing.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

namespace modelgw::importer {
namespace {

// OpenAI-compatible vendors LiteLLM names by a prefix: served by the openai plugin.
struct CompatibleHost {
  const char* prefix;
  const char* family;
  const char* base_url;  // nullptr: api_base is required
  const char* key_env;   // LiteLLM's default variable; nullptr: no key
};
constexpr CompatibleHost kCompatibleHosts[] = {
    {"groq", "groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"},
    {"mistral", "mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY"},
    {"deepseek", "deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"},
    {"together_ai", "together", "https://api.together.xyz/v1", "TOGETHERAI_API_KEY"},
    {"openrouter", "openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"},
    {"fireworks_ai", "fireworks", "https://api.fireworks.ai/inference/v1", "FIREWORKS_AI_API_KEY"},
    {"xai", "xai", "https://api.x.ai/v1", "XAI_API_KEY"},
    {"perplexity", "perplexity", "https://api.perplexity.ai", "PERPLEXITYAI_API_KEY"},
    {"hosted_vllm", "vllm", nullptr, nullptr},
    {"lm_studio", "lmstudio", "http://localhost:1234/v1", nullptr},
    {"llamafile", "llamafile", "http://127.0.0.1:8080/v1", nullptr},
};

// Prefixes whose API no plugin speaks, and why.
struct Refused {
  const char* prefix;
  const char* why;
};
constexpr Refused kRefused[] = {
    {"bedrock", "AWS Bedrock needs SigV4-signed requests; no modelgw provider plugin signs them"},
    {"sagemaker", "SageMaker needs SigV4-signed requests; no modelgw provider plugin signs them"},
    {"vertex_ai",
     "Vertex AI authenticates with Google Cloud service-account tokens; the gemini plugin speaks the Gemini "
     "API with an API key (write it as gemini/<model> with a GEMINI_API_KEY to use that instead)"},
    {"vertex_ai_beta",
     "Vertex AI authenticates with Google Cloud service-account tokens; the gemini plugin "
     "speaks the Gemini API with an API key"},
    {"azure_ai",
     "Azure AI Inference needs an api-version query string, which a modelgw base_url cannot carry"},
    {"text-completion-openai", "the legacy /completions API: modelgw serves chat and embeddings only"},
    {"vllm",
     "LiteLLM runs this in-process; point modelgw at a vLLM server instead (hosted_vllm/ or openai/ "
     "with api_base)"},
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

struct UrlParts {
  bool ok = false;
  std::string origin;  // scheme://host[:port]
  std::string host;
  std::string path;  // without a trailing '/', query or fragment
  bool had_userinfo = false;
  bool had_query = false;
};

UrlParts split_url(const std::string& url) {
  UrlParts p;
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return p;
  const std::string scheme = lower(url.substr(0, scheme_end));
  if (scheme != "http" && scheme != "https") return p;
  const auto host_start = scheme_end + 3;
  const auto path_start = url.find_first_of("/?#", host_start);
  std::string authority =
      url.substr(host_start, path_start == std::string::npos ? std::string::npos : path_start - host_start);
  if (const auto at = authority.rfind('@'); at != std::string::npos) {
    authority = authority.substr(at + 1);
    p.had_userinfo = true;
  }
  if (authority.empty()) return p;
  p.origin = scheme + "://" + authority;
  p.host = lower(authority);
  if (p.host.front() == '[') {
    p.host = p.host.substr(0, p.host.find(']') + 1);
  } else if (const auto colon = p.host.rfind(':'); colon != std::string::npos) {
    p.host.resize(colon);
  }
  p.path = path_start == std::string::npos ? "" : url.substr(path_start);
  if (const auto q = p.path.find_first_of("?#"); q != std::string::npos) {
    p.had_query = true;
    p.path.resize(q);
  }
  while (!p.path.empty() && p.path.back() == '/') p.path.pop_back();
  p.ok = true;
  return p;
}

// A provider name for a host: "api.groq.com" -> "groq", "localhost" -> "local".
std::string family_of_host(const std::string& host) {
  if (host == "localhost" || starts_with(host, "127.") || host == "[::1]" || host == "0.0.0.0")
    return "local";
  if (!host.empty() && (std::isdigit(static_cast<unsigned char>(host[0])) || host[0] == '['))
    return "self-hosted";
  std::string h = host;
  for (const char* drop : {"api.", "www."}) {
    if (starts_with(h, drop) && h.find('.', std::string_view(drop).size()) != std::string::npos)
      h = h.substr(std::string_view(drop).size());
  }
  std::string label = h.substr(0, h.find('.'));
  std::string out;
  for (char c : label) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out.empty() ? "host" : out;
}

// Known vector lengths of embedding models.
std::int64_t known_dimensions(const std::string& model) {
  if (model == "text-embedding-3-small" || model == "text-embedding-ada-002") return 1536;
  if (model == "text-embedding-3-large" || model == "gemini-embedding-001") return 3072;
  if (model == "text-embedding-004" || model == "embedding-001" || model == "text-embedding-005") return 768;
  return 0;
}

std::string tokenizer_for(const std::string& model) {
  for (const char* p : {"gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o", "gpt-oss"}) {
    if (starts_with(model, p)) return "o200k_base";
  }
  for (const char* p : {"gpt-4", "gpt-3.5", "text-embedding-"}) {
    if (starts_with(model, p)) return "cl100k_base";
  }
  return "";
}

std::string param_number_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  std::string s = std::to_string(v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  return s;
}

// Keys of litellm_params read below; any other is reported unsupported.
const std::set<std::string>& handled_params() {
  static const std::set<std::string> keys{"model",
                                          "api_key",
                                          "api_base",
                                          "base_url",
                                          "api_version",
                                          "organization",
                                          "timeout",
                                          "stream_timeout",
                                          "max_retries",
                                          "rpm",
                                          "tpm",
                                          "order",
                                          "weight",
                                          "input_cost_per_token",
                                          "output_cost_per_token",
                                          "drop_params",
                                          "dimensions",
                                          "extra_headers",
                                          "headers"};
  return keys;
}

const std::set<std::string>& handled_info() {
  static const std::set<std::string> keys{"mode",
                                          "id",
                                          "base_model",
                                          "input_cost_per_token",
                                          "output_cost_per_token",
                                          "max_input_tokens",
                                          "max_output_tokens",
                                          "max_tokens",
                                          "output_vector_size"};
  return keys;
}

}  // namespace

std::optional<Deployment> read_deployment(const YAML::Node& entry, std::size_t index,
                                          const DeploymentDefaults& defaults, SecretBook& secrets,
                                          std::vector<ReportRow>& rows) {
  const std::string path = "model_list[" + std::to_string(index) + "]";
  auto row = [&](std::string setting, RowStatus status, std::string detail) {
    rows.push_back(ReportRow{std::move(setting), status, std::move(detail)});
  };
  if (!entry.IsMap()) {
    row(path, RowStatus::unsupported, "not a mapping; skipped");
    return std::nullopt;
  }
  const auto name = scalar_text(child(entry, "model_name"));
  if (!name || name->empty()) {
    row(path, RowStatus::unsupported, "no model_name; skipped");
    return std::nullopt;
  }
  if (*name == "auto") {
    row(path + " (auto)", RowStatus::unsupported,
        "'auto' is reserved in modelgw (answered 422 model_not_available); rename the model; skipped");
    return std::nullopt;
  }
  const YAML::Node params = child(entry, "litellm_params");
  const YAML::Node info = child(entry, "model_info").IsMap() ? child(entry, "model_info") : YAML::Node();
  const std::string label = path + " (" + *name + ")";
  const auto litellm_model = params.IsMap() ? scalar_text(child(params, "model")) : std::nullopt;
  if (!litellm_model || litellm_model->empty()) {
    row(label, RowStatus::unsupported, "no litellm_params.model; skipped");
    return std::nullopt;
  }
  const std::string p = path + ".litellm_params.";

  // Every key modelgw has no place for, and the secrets among them.
  for (const auto& kv : params) {
    const std::string key = kv.first.Scalar();
    if (is_credential_key(key)) {
      if (auto v = scalar_text(kv.second)) secrets.add(*v);
    }
    if (handled_params().count(key)) continue;
    row(p + key, RowStatus::unsupported,
        is_credential_key(key)
            ? "a credential of a provider modelgw does not call this way; not copied"
            : "a per-model default or provider option: modelgw forwards the client's parameters and "
              "has no per-model defaults");
  }

  std::string mode = info ? scalar_text(child(info, "mode")).value_or("chat") : "chat";
  Deployment d;
  d.index = index;
  d.path = path;
  d.model_name = *name;
  if (mode == "completion") {
    d.approximated = true;
    d.notes.push_back("mode completion served as chat (modelgw has no /v1/completions)");
    mode = "chat";
  } else if (mode != "chat" && mode != "embedding") {
    row(label, RowStatus::unsupported,
        "model_info.mode " + mode + ": modelgw serves chat and embedding models only; skipped");
    return std::nullopt;
  }

  // The provider: the prefix of litellm_params.model picks the plugin.
  std::string prefix;
  std::string upstream = *litellm_model;
  if (const auto slash = litellm_model->find('/'); slash != std::string::npos) {
    prefix = lower(litellm_model->substr(0, slash));
    upstream = litellm_model->substr(slash + 1);
  } else if (starts_with(upstream, "gpt-") || starts_with(upstream, "o1") || starts_with(upstream, "o3") ||
             starts_with(upstream, "o4") || starts_with(upstream, "chatgpt-") ||
             starts_with(upstream, "text-embedding-") || starts_with(upstream, "ft:gpt")) {
    prefix = "openai";
  } else if (starts_with(upstream, "claude-")) {
    prefix = "anthropic";
  } else if (starts_with(upstream, "gemini-")) {
    prefix = "gemini";
    d.approximated = true;
    d.notes.push_back(
        "LiteLLM sends a gemini-* model without a prefix to Vertex AI; modelgw calls the Gemini "
        "API (Google AI Studio) with GEMINI_API_KEY");
  } else {
    row(label, RowStatus::unsupported,
        "model '" + upstream + "' names no provider (openai/, anthropic/, gemini/, azure/, ...); skipped");
    return std::nullopt;
  }
  for (const auto& r : kRefused) {
    if (prefix == r.prefix) {
      row(label, RowStatus::unsupported, std::string(r.why) + "; skipped");
      return std::nullopt;
    }
  }

  const YAML::Node api_base_node =
      child(params, "api_base") ? child(params, "api_base") : child(params, "base_url");
  const auto base_env = env_reference(api_base_node);
  std::optional<UrlParts> base;
  if (!base_env) {
    if (auto text = scalar_text(api_base_node); text && !text->empty()) {
      base = split_url(*text);
      if (!base->ok) {
        row(p + "api_base", RowStatus::unsupported, "not an http:// or https:// URL; deployment skipped");
        return std::nullopt;
      }
      if (base->had_userinfo) {
        secrets.add(*text);
        d.approximated = true;
        d.notes.push_back("credentials in api_base's URL are not copied (give them as a header)");
      }
    }
  }
  if (base_env) {
    if (!is_env_name(*base_env)) {
      row(p + "api_base", RowStatus::unsupported, "os.environ/ names no valid variable; deployment skipped");
      return std::nullopt;
    }
    secrets.note_reference(*base_env, p + "api_base");
  }
  // base_url for the host's root plus `suffix`, or the whole api_base.
  auto base_text = [&](const std::string& suffix, bool path_kept) -> std::string {
    if (base_env) return "${" + *base_env + "}" + suffix;
    if (path_kept) return base->origin + base->path;
    return base->origin + suffix;
  };

  std::string key_env;  // LiteLLM's default variable when api_key is absent
  std::string vendor;   // the price dataset's vendor
  DraftProvider& pv = d.provider;
  bool azure = false;
  if (prefix == "openai") {
    pv.plugin = "openai";
    vendor = "openai";
    if (base || base_env) {
      pv.base_url = base_text("", true);
      d.family = base && base->host == "api.openai.com" ? "openai"
                 : base                                 ? family_of_host(base->host)
                                                        : "openai";
      if (d.family != "openai") {
        d.notes.push_back("OpenAI-compatible host through the openai plugin");
        vendor.clear();  // another vendor's prices
      }
      key_env = d.family == "openai" ? "OPENAI_API_KEY" : "";
    } else {
      pv.base_url = "https://api.openai.com/v1";
      d.family = "openai";
      key_env = "OPENAI_API_KEY";
    }
  } else if (prefix == "anthropic") {
    pv.plugin = "anthropic";
    vendor = "anthropic";
    d.family = "anthropic";
    key_env = "ANTHROPIC_API_KEY";
    if (base || base_env) {
      std::string path = base ? base->path : "";
      for (const char* tail : {"/v1/messages", "/messages"}) {
        if (path.size() >= std::string_view(tail).size() && path.ends_with(tail)) {
          path.resize(path.size() - std::string_view(tail).size());
          break;
        }
      }
      if (!path.ends_with("/v1")) path += "/v1";
      pv.base_url = base_env ? "${" + *base_env + "}/v1" : base->origin + path;
    } else {
      pv.base_url = "https://api.anthropic.com/v1";
    }
  } else if (prefix == "gemini") {
    pv.plugin = "gemini";
    vendor = "google";
    d.family = "gemini";
    key_env = "GEMINI_API_KEY";
    if (base || base_env) {
      std::string path = base ? base->path : "";
      if (!path.ends_with("/v1beta") && !path.ends_with("/v1")) path += "/v1beta";
      pv.base_url = base_env ? "${" + *base_env + "}/v1beta" : base->origin + path;
    } else {
      pv.base_url = "https://generativelanguage.googleapis.com/v1beta";
    }
  } else if (prefix == "azure") {
    azure = true;
    pv.plugin = "openai";
    vendor = "openai";
    d.family = "azure";
    key_env = "AZURE_API_KEY";
    if (base) {
      pv.base_url = base->origin + "/openai/v1";
    } else if (base_env) {
      pv.base_url = "${" + *base_env + "}/openai/v1";
    } else {
      pv.base_url = "${AZURE_API_BASE}/openai/v1";
      secrets.note_reference("AZURE_API_BASE", p + "api_base (LiteLLM's default)");
    }
    std::string how = "Azure OpenAI through its v1 API (" + pv.base_url +
                      ", key in the api-key header, the deployment name as model)";
    if (auto v = scalar_text(child(params, "api_version"))) {
      how += "; api_version " + *v +
             " is not sent: a modelgw base_url carries no query string (the v1 API "
             "needs none, but the resource must offer it)";
    }
    d.approximated = true;
    d.notes.push_back(how);
  } else if (prefix == "ollama" || prefix == "ollama_chat") {
    pv.plugin = "openai";
    d.family = "ollama";
    if (base_env) {
      pv.base_url = "${" + *base_env + "}/v1";
    } else {
      pv.base_url = (base ? base->origin : std::string("http://localhost:11434")) + "/v1";
    }
    d.approximated = true;
    d.notes.push_back("Ollama's OpenAI-compatible /v1 API instead of LiteLLM's native /api/chat");
  } else {
    const CompatibleHost* host = nullptr;
    for (const auto& h : kCompatibleHosts) {
      if (prefix == h.prefix) host = &h;
    }
    if (host == nullptr) {
      row(label, RowStatus::unsupported,
          "no modelgw provider plugin speaks " + prefix +
              "'s API (plugins: openai and OpenAI-compatible hosts, anthropic, gemini); if it is "
              "OpenAI-compatible, write it as openai/<model> with api_base; skipped");
      return std::nullopt;
    }
    if (!base && !base_env && host->base_url == nullptr) {
      row(label, RowStatus::unsupported, prefix + "/ needs api_base (the server's URL); skipped");
      return std::nullopt;
    }
    pv.plugin = "openai";
    d.family = host->family;
    pv.base_url = (base || base_env) ? base_text("", true) : host->base_url;
    key_env = host->key_env != nullptr ? host->key_env : "";
    d.notes.push_back("OpenAI-compatible host through the openai plugin");
  }
  if (base && base->had_query && !azure) {
    d.approximated = true;
    d.notes.push_back("the query string of api_base is dropped (a modelgw base_url carries none)");
  }
  if (child(params, "api_version") && !azure) {
    row(p + "api_version", RowStatus::unsupported, "only Azure takes an api_version");
  }

  // The key: a reference stays one, a literal becomes one.
  std::string key_ref;
  const YAML::Node key_node = child(params, "api_key");
  const std::string stem = key_env.empty() ? env_stem(d.family) + "_API_KEY" : key_env;
  if (auto env = env_reference(key_node)) {
    if (is_env_name(*env)) {
      key_ref = "${" + *env + "}";
      secrets.note_reference(*env, p + "api_key");
    } else {
      const std::string var = secrets.variable_for("os.environ/" + *env, stem);
      key_ref = "${" + var + "}";
      secrets.note_reference(var, p + "api_key");
      row(p + "api_key", RowStatus::by_hand,
          "os.environ/ names no valid variable: the config reads ${" + var + "}; export " + var +
              "=<the key> in modelgw's environment");
    }
  } else if (auto literal = scalar_text(key_node); literal && !literal->empty()) {
    secrets.add(*literal);
    const std::string var = secrets.variable_for(*literal, stem);
    key_ref = "${" + var + "}";
    secrets.note_reference(var, p + "api_key");
    row(p + "api_key", RowStatus::by_hand,
        "a literal key, not copied: export " + var +
            "=<that key> in modelgw's environment (the config reads ${" + var + "})");
  } else if (!key_env.empty()) {
    key_ref = "${" + key_env + "}";
    secrets.note_reference(key_env, p + "api_key (LiteLLM's default)");
  }
  if (azure) {
    pv.api_key = "";
    if (!key_ref.empty()) pv.headers.emplace_back("api-key", key_ref);
  } else {
    pv.api_key = key_ref;
  }
  if (key_ref.empty()) d.notes.push_back("no api_key: requests carry no Authorization header");

  if (child(params, "organization")) {
    if (auto env = env_reference(child(params, "organization")); env && is_env_name(*env)) {
      pv.organization = "${" + *env + "}";
      secrets.note_reference(*env, p + "organization");
    } else if (auto v = scalar_text(child(params, "organization"))) {
      pv.organization = *v;
    }
    row(p + "organization", pv.plugin == "openai" ? RowStatus::imported : RowStatus::unsupported,
        pv.plugin == "openai" ? "sent as the OpenAI-Organization header (providers.*.organization)"
                              : "only the openai plugin sends an organization");
    if (pv.plugin != "openai") pv.organization.clear();
  }
  for (const char* key : {"extra_headers", "headers"}) {
    if (!child(params, key)) continue;
    if (child(params, key).IsMap()) {
      for (const auto& kv : child(params, key)) {
        if (auto v = scalar_text(kv.second)) secrets.add(*v);
      }
    }
    row(p + key, RowStatus::by_hand,
        "copy these headers into the provider's `headers:` block of the written file (values are not copied: "
        "they may hold credentials)");
  }

  // Timeouts: the deployment's own, else the router's.
  if (auto t = number_value(child(params, "timeout"))) {
    pv.timeout_ms = seconds_to_ms(*t);
    row(p + "timeout", RowStatus::imported, "the whole call: timeout_ms " + std::to_string(*pv.timeout_ms));
  } else {
    pv.timeout_ms = defaults.timeout_ms;
  }
  if (auto t = number_value(child(params, "stream_timeout"))) {
    pv.first_byte_timeout_ms = seconds_to_ms(*t);
    row(p + "stream_timeout", RowStatus::approximated,
        "first_byte_timeout_ms " + std::to_string(*pv.first_byte_timeout_ms) +
            ": modelgw bounds the wait for the answer's head and every silence within a stream, for streamed "
            "and plain calls alike");
  } else {
    pv.first_byte_timeout_ms = defaults.first_byte_timeout_ms;
  }
  if (pv.first_byte_timeout_ms && pv.timeout_ms && *pv.first_byte_timeout_ms > *pv.timeout_ms) {
    pv.first_byte_timeout_ms = pv.timeout_ms;
  }
  if (pv.first_byte_timeout_ms && !pv.timeout_ms && *pv.first_byte_timeout_ms > 600000) {
    pv.timeout_ms = pv.first_byte_timeout_ms;
  }
  if (auto n = number_value(child(params, "max_retries"))) d.max_retries = static_cast<std::int64_t>(*n);

  // Ranking within the group.
  if (auto v = number_value(child(params, "order"))) d.order = *v;
  if (auto v = number_value(child(params, "weight"))) d.weight = *v;
  if (auto v = number_value(child(params, "rpm"))) d.rpm = *v;
  if (auto v = number_value(child(params, "tpm"))) d.tpm = *v;
  // The router also reads rpm and tpm beside litellm_params.
  for (const auto& kv : entry) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
    if (key == "model_name" || key == "litellm_params" || key == "model_info") continue;
    if (key == "rpm" || key == "tpm") {
      if (auto v = number_value(kv.second))
        (key == "rpm" ? d.rpm : d.tpm) = std::max(key == "rpm" ? d.rpm : d.tpm, *v);
      row(path + "." + key, RowStatus::unsupported,
          "the deployment's own " + key +
              ": modelgw has no per-model limit (it retries the vendor's 429s and a tier moves on); it only "
              "ranks "
              "the deployment in its group's tier");
    } else {
      row(path + "." + key, RowStatus::unsupported, "no modelgw equivalent");
    }
  }
  for (const char* key : {"rpm", "tpm"}) {
    if (!child(params, key)) continue;
    row(p + key, RowStatus::unsupported,
        std::string("the deployment's own ") + key + " " +
            param_number_text(number_value(child(params, key)).value_or(0)) +
            ": modelgw has no per-model limit (it retries the vendor's 429s and a tier moves on); it only "
            "ranks "
            "the deployment in its group's tier");
  }
  for (const char* key : {"order", "weight"}) {
    if (!child(params, key)) continue;
    row(p + key, RowStatus::approximated,
        std::string(key) +
            " ranks the deployment in its group's tier: modelgw tries them in that order, it "
            "does not spread load");
  }

  // The catalog entry.
  DraftModel& m = d.model;
  m.model = upstream;
  m.kind = mode;
  const std::string base_model = info ? scalar_text(child(info, "base_model")).value_or("") : "";
  std::string price_model = upstream;
  if (!base_model.empty()) {
    price_model = base_model.substr(base_model.find('/') == std::string::npos ? 0 : base_model.find('/') + 1);
  }
  if (pv.plugin == "openai" && (d.family == "openai" || azure)) m.tokenizer = tokenizer_for(price_model);
  if (auto drop = bool_value(child(params, "drop_params"))) {
    m.drop_unsupported_params = *drop;
    row(p + "drop_params", RowStatus::imported,
        std::string("drop_unsupported_params: ") + (*drop ? "true" : "false") +
            " (parameters the model does not take are removed and named in X-Dropped-Params)");
  } else {
    m.drop_unsupported_params = defaults.drop_params;
  }
  if (info) {
    const auto in = number_value(child(info, "max_input_tokens"));
    const auto out = number_value(child(info, "max_output_tokens"));
    if (in && *in >= 1 && *in <= 1e8) m.context_window = static_cast<std::int64_t>(*in);
    if (out && *out >= 1 && *out <= 1e8) m.max_output_tokens = static_cast<std::int64_t>(*out);
    if (m.context_window > 0 && m.max_output_tokens >= m.context_window) m.max_output_tokens = 0;
    if (in) {
      row(path + ".model_info.max_input_tokens", RowStatus::approximated,
          "context_window " + std::to_string(m.context_window) +
              ": modelgw bounds prompt + max_tokens by it, LiteLLM the prompt alone");
    }
    if (out && m.max_output_tokens > 0) {
      row(path + ".model_info.max_output_tokens", RowStatus::imported,
          "max_output_tokens " + std::to_string(m.max_output_tokens));
    }
    std::string ignored;
    for (const auto& kv : info) {
      const std::string key = kv.first.Scalar();
      if (handled_info().count(key) || (key == "max_tokens")) continue;
      ignored += (ignored.empty() ? "" : ", ") + key;
    }
    if (child(info, "max_tokens")) ignored += std::string(ignored.empty() ? "" : ", ") + "max_tokens";
    if (!ignored.empty()) {
      row(path + ".model_info", RowStatus::unsupported,
          ignored + ": descriptive; modelgw takes a model's capabilities from its provider plugin");
    }
  }
  if (m.kind == "embedding") {
    if (pv.plugin == "anthropic") {
      row(label, RowStatus::unsupported,
          "an embedding model on Anthropic: the anthropic plugin serves no "
          "embeddings; skipped");
      return std::nullopt;
    }
    if (auto v = number_value(child(params, "dimensions")); v && *v >= 1 && *v <= 65536) {
      m.dimensions = static_cast<std::int64_t>(*v);
    } else if (auto w = number_value(child(info, "output_vector_size")); w && *w >= 1 && *w <= 65536) {
      m.dimensions = static_cast<std::int64_t>(*w);
    } else if (const auto known = known_dimensions(price_model); known > 0) {
      m.dimensions = known;
    } else {
      m.dimensions = 1536;
      d.approximated = true;
      d.notes.push_back("vector length unknown: dimensions 1536 assumed; set the model's own");
    }
    if (pv.plugin == "gemini") m.max_inputs = 100;
    d.notes.push_back("kind embedding, " + std::to_string(m.dimensions) + " dimensions");
  } else if (child(params, "dimensions")) {
    row(p + "dimensions", RowStatus::unsupported, "dimensions applies to embedding models only");
  }

  // Prices: the file's own, else the dataset's.
  const auto in_cost =
      number_value(child(params, "input_cost_per_token") ? child(params, "input_cost_per_token")
                                                         : child(info, "input_cost_per_token"));
  const auto out_cost =
      number_value(child(params, "output_cost_per_token") ? child(params, "output_cost_per_token")
                                                          : child(info, "output_cost_per_token"));
  const auto micros = [](double per_token) {
    return std::clamp<std::int64_t>(std::llround(per_token * 1e12), 0, 1'000'000'000'000);
  };
  std::optional<pricing::Prices> dataset;
  if (!vendor.empty()) dataset = pricing::builtin_prices(vendor, price_model);
  if (in_cost || out_cost) {
    DraftPrices prices;
    prices.input = in_cost ? micros(*in_cost) : dataset ? dataset->input : 0;
    prices.output = out_cost ? micros(*out_cost) : dataset ? dataset->output : 0;
    m.prices = prices;
    const bool both = in_cost && out_cost;
    row(path + ".input_cost_per_token/output_cost_per_token",
        both ? RowStatus::imported : RowStatus::approximated,
        std::string("prices: { input: ") + usd_text(prices.input) + ", output: " + usd_text(prices.output) +
            " } USD per million tokens" + (both ? "" : " (the missing one from the price dataset, else 0)"));
  } else if (dataset && price_model == upstream && !azure) {
    d.notes.push_back("priced by modelgw's price dataset");
  } else if (dataset) {
    m.prices = DraftPrices{dataset->input, dataset->output};
    d.notes.push_back("priced as " + price_model + " by the price dataset");
  } else {
    m.prices = DraftPrices{};
    d.approximated = true;
    d.notes.push_back(
        "no price known (no input_cost_per_token/output_cost_per_token, not in the price dataset): "
        "priced 0; set its prices if it costs money");
  }
  return d;
}

}  // namespace modelgw::importer
