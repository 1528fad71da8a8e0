#include "model/core/config.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "model/core/error.h"

namespace oonic {

namespace {

// True if some parameter lives under `prefix.` (an empty map there is fine).
bool is_prefix(const ParamTable& t, const std::string& prefix) {
  for (const auto& e : t.entries())
    if (e.key.size() > prefix.size() && e.key.compare(0, prefix.size(), prefix) == 0 &&
        e.key[prefix.size()] == '.')
      return true;
  return false;
}

// `line` is the 1-based line of the key that led here (yaml-cpp marks an empty
// value at the next token, so the key's line is the one to name).
// set_at: every parameter the file set, with its line, so that one reached twice
// (`topology.kind: a` beside `topology: {kind: b}`) is refused, not last-wins.
void walk(ParamTable& t, const YAML::Node& node, const std::string& prefix, const std::string& file,
          int line, std::map<std::string, int>& set_at) {
  std::string where = file + ":" + std::to_string(line);
  if (node.IsMap()) {
    std::map<std::string, int> seen;  // key -> its line: yaml-cpp keeps both of a duplicate
    for (const auto& kv : node) {
      if (!kv.first.IsScalar())  // a complex key (`? [a, b]`): no parameter is named so
        throw Error(msg::kConfig, file + ":" + std::to_string(kv.first.Mark().line + 1) +
                                      ": a key must be a plain name" +
                                      (prefix.empty() ? "" : " (under '" + prefix + "')"));
      std::string k = kv.first.Scalar();
      const int at = kv.first.Mark().line + 1;
      if (!seen.emplace(k, at).second)
        throw Error(msg::kConfig, file + ":" + std::to_string(at) + ": duplicate key '" +
                                      (prefix.empty() ? k : prefix + "." + k) +
                                      "' (first on line " + std::to_string(seen[k]) + ")");
      walk(t, kv.second, prefix.empty() ? k : prefix + "." + k, file, kv.first.Mark().line + 1,
           set_at);
    }
  } else if (node.IsScalar()) {
    if (prefix.empty()) throw Error(msg::kConfig, where + ": expected a map of parameters");
    if (!set_at.emplace(prefix, line).second)
      throw Error(msg::kConfig, where + ": parameter '" + prefix + "' set twice (first on line " +
                                    std::to_string(set_at[prefix]) + ")");
    t.set(prefix, node.Scalar(), where);
  } else if (node.IsNull()) {
    if (prefix.empty()) return;
    if (t.has(prefix))
      throw Error(msg::kConfig, where + ": parameter '" + prefix + "' has no value");
    if (!is_prefix(t, prefix)) t.set(prefix, "", where);  // unknown key: names it, suggests
  } else {
    throw Error(msg::kConfig, where + ": key '" + prefix + "' must be a scalar or a map");
  }
}

std::string range_text(const ParamTable::Entry& e, const char* sep = "|") {
  std::ostringstream os;
  switch (e.type) {
    case ParamTable::Type::kUInt:
    case ParamTable::Type::kDouble:
      os << "[" << format_number(e.min) << ", " << format_number(e.max) << "]";
      break;
    case ParamTable::Type::kBool:
      os << "true" << sep << "false";
      break;
    case ParamTable::Type::kString:
      for (size_t i = 0; i < e.choices.size(); ++i) os << (i ? sep : "") << e.choices[i];
      break;
  }
  return os.str();
}

// A second document (after `---`) would be ignored by LoadFile: refuse it. The
// parser is driven by hand, at most two documents: yaml-cpp 0.7's LoadAll never
// returns on some malformed input (the parser reports a new document at the same
// place forever), which is told apart here by the document not moving on.
class DocumentStarts : public YAML::EventHandler {
 public:
  int line = -1;
  void OnDocumentStart(const YAML::Mark& m) override { line = m.line; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

void check_one_document(const std::string& path) {
  std::ifstream in(path);
  YAML::Parser parser(in);
  DocumentStarts h;
  if (!parser.HandleNextDocument(h)) return;
  const int first = h.line;
  h.line = -1;
  if (!parser.HandleNextDocument(h)) return;
  if (h.line >= 0 && h.line == first)
    throw Error(msg::kConfig, path + ":" + std::to_string(h.line + 1) +
                                  ": not YAML the parser can read past this line");
  throw Error(msg::kConfig, path + (h.line >= 0 ? ":" + std::to_string(h.line + 1) : "") +
                                ": a second YAML document (after ---); a configuration is one "
                                "document");
}

}  // namespace

void apply_config_file(ParamTable& table, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
    check_one_document(path);
  } catch (const YAML::BadFile&) {
    throw Error(msg::kConfig, path + ": cannot open config file");
  } catch (const YAML::Exception& e) {
    throw Error(msg::kConfig, path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (root.IsNull()) return;  // empty file: all defaults
  if (!root.IsMap()) throw Error(msg::kConfig, path + ":1: top level must be a map");
  try {
    std::map<std::string, int> set_at;
    walk(table, root, "", path, 1, set_at);
  } catch (const YAML::Exception& e) {  // anything yaml-cpp refuses while walking
    throw Error(msg::kConfig, path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

void apply_override(ParamTable& table, const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error(msg::kConfig, "--set '" + assignment + "': expected KEY=VALUE");
  std::string key = assignment.substr(0, eq);
  std::string val = assignment.substr(eq + 1);
  try {
    YAML::Node n = YAML::Load(val);
    if (n.IsScalar()) val = n.Scalar();
  } catch (const YAML::Exception&) {
    // keep the raw text; the table reports the type error
  }
  table.set(key, val, "--set");
}

void apply_config(ParamTable& table, const std::string& path,
                  const std::vector<std::string>& sets) {
  if (!path.empty()) apply_config_file(table, path);
  for (const auto& s : sets) apply_override(table, s);
  table.apply_presets();
}

std::string resolved_yaml(const ParamTable& table) {
  // Sorted by key so that each map appears once however blocks registered.
  std::vector<const ParamTable::Entry*> es;
  for (const auto& e : table.entries()) es.push_back(&e);
  std::sort(es.begin(), es.end(), [](auto* a, auto* b) { return a->key < b->key; });
  std::ostringstream os;
  os << "# oonic resolved configuration: every parameter with its unit; the origin is noted where "
        "not the default.\n";
  std::vector<std::string> open;  // current open path components
  for (const auto* e : es) {
    std::vector<std::string> parts;
    std::stringstream ss(e->key);
    std::string p;
    while (std::getline(ss, p, '.')) parts.push_back(p);
    size_t common = 0;
    while (common < open.size() && common + 1 < parts.size() && open[common] == parts[common])
      ++common;
    open.resize(common);
    for (size_t i = common; i + 1 < parts.size(); ++i) {
      os << std::string(2 * i, ' ') << parts[i] << ":\n";
      open.push_back(parts[i]);
    }
    std::string v = table.value_text(*e);
    if (e->type == ParamTable::Type::kString) {
      YAML::Emitter em;
      em << YAML::DoubleQuoted << v;  // escapes quotes and backslashes
      v = em.c_str();
    }
    os << std::string(2 * (parts.size() - 1), ' ') << parts.back() << ": " << v << "  # " << e->unit
       << (e->source == "default" ? "" : ", from " + e->source) << "\n";
  }
  return os.str();
}

std::string params_listing(const ParamTable& table, bool markdown) {
  std::ostringstream os;
  // An empty string default is shown as "" (as in a YAML config).
  auto dflt = [](const ParamTable::Entry& e) {
    return e.default_text.empty() ? std::string("\"\"") : e.default_text;
  };
  if (markdown) {
    os << "| parameter | default | unit | range | description |\n|---|---|---|---|---|\n";
    for (const auto& e : table.entries())
      os << "| `" << e.key << "` | " << dflt(e) << " | " << e.unit << " | " << range_text(e, " / ")
         << " | " << e.desc << " |\n";
  } else {
    for (const auto& e : table.entries()) {
      os << e.key << " = " << dflt(e) << " [" << e.unit << "] range " << range_text(e) << "\n    "
         << e.desc << "\n";
    }
  }
  return os.str();
}

}  // namespace oonic
