// Reading single values of a LiteLLM config.yaml: its `os.environ/NAME`
// references, numbers given as numbers or strings, and the secret values an
// import must never print or write (SecretBook).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::importer {

// node[key] when node is a mapping holding key, else an undefined node (whose
// operator! is true): never yaml-cpp's invalid node, which throws when asked
// anything.
YAML::Node child(const YAML::Node& node, std::string_view key);

// The text of a scalar; nullopt for a missing node, a null, a map or a list.
std::optional<std::string> scalar_text(const YAML::Node& node);
std::optional<double> number_value(const YAML::Node& node);
std::optional<bool> bool_value(const YAML::Node& node);

// NAME for the scalar "os.environ/NAME"; nullopt for anything else.
std::optional<std::string> env_reference(const YAML::Node& node);
// A name ${NAME} can reference: [A-Za-z_][A-Za-z0-9_]*.
bool is_env_name(std::string_view name);
// "api.groq.com" -> "API_GROQ_COM": upper case, anything else '_'.
std::string env_stem(std::string_view text);

// A key whose value is a credential: api_key, master_key, redis_password,
// database_url, aws_secret_access_key, slack_webhook_url, ... (by its words,
// so max_tokens or default_key_generate_params are not).
bool is_credential_key(std::string_view key);

// Seconds (LiteLLM's unit for timeouts) as milliseconds within [1, 24 h].
std::int64_t seconds_to_ms(double seconds);
// A duration such as "30s", "15m", "1h", "30d", "1mo" in seconds.
std::optional<std::int64_t> duration_seconds(std::string_view text);

// Secrets read from the imported file, and the environment variables that
// replace them in the written config.
class SecretBook {
 public:
  // A value that must never reach the output (short values are ignored: they
  // cannot be told apart from ordinary text).
  void add(const std::string& value);
  // The variable that carries the literal `value`: `stem` the first time a
  // distinct value asks for it, then stem_2, stem_3, ... The same literal
  // always gets the same variable.
  std::string variable_for(const std::string& value, const std::string& stem);
  // `text` with every secret replaced by "[secret]".
  std::string scrub(std::string text) const;
  // Variables the written config references, each with where it came from.
  void note_reference(const std::string& variable, const std::string& setting);
  // A variable the file references somewhere: never given to a literal.
  void reserve(const std::string& variable) { taken_.insert(variable); }
  const std::map<std::string, std::string>& references() const { return references_; }

 private:
  std::vector<std::string> secrets_;
  std::map<std::string, std::string> variable_of_;  // literal -> variable
  std::set<std::string> taken_;
  std::map<std::string, std::string> references_;  // variable -> first setting
};

}  // namespace modelgw::importer
