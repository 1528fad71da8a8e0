// Parameter registry. Each block has one params struct whose members carry the
// defaults; its describe(ParamTable&) binds each member to a dotted key with a
// unit, a one-line description and a range. The table sets values from YAML or
// --set (type and range checked, errors name the key and where it came from) and
// lists every parameter for `oonic params` and the docs. Plain C++.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace oonic {

// Shortest decimal text that reads back as the same double (docs, config files).
std::string format_number(double v);

class ParamTable {
 public:
  enum class Type { kUInt, kDouble, kBool, kString };

  struct Entry {
    std::string key;
    Type type;
    void* ptr;
    std::string unit;
    std::string desc;
    double min = 0, max = 0;           // numeric range, inclusive
    std::vector<std::string> choices;  // kString: allowed values (empty = any)
    std::string default_text;          // value when described
    std::string source = "default";    // "default", "FILE:LINE" or "--set"
    int width = 64;                    // kUInt: 32 or 64
  };

  void add(const std::string& key, uint32_t* p, const char* unit, const char* desc, double min,
           double max);
  void add(const std::string& key, uint64_t* p, const char* unit, const char* desc, double min,
           double max);
  void add(const std::string& key, double* p, const char* unit, const char* desc, double min,
           double max);
  void add(const std::string& key, bool* p, const char* desc);
  void add(const std::string& key, std::string* p, const char* desc,
           std::vector<std::string> choices);

  // Set from text; `where` names the origin for errors and the resolved config
  // ("cfg.yaml:12", "--set"). Throws oonic::Error (msg::kConfig) naming the key.
  void set(const std::string& key, const std::string& text, const std::string& where);
  bool has(const std::string& key) const { return find(key) != nullptr; }
  const Entry* find(const std::string& key) const;
  std::string value_text(const Entry& e) const;
  const std::vector<Entry>& entries() const { return entries_; }
  // An entry of another table (listings that merge two systems' keys); its
  // member must outlive this table.
  void adopt(const Entry& e) { entries_.push_back(e); }

  // A preset: when `key` ends up `value`, every key of `sets` still at its
  // default takes the preset's value (source "preset KEY=VALUE").
  void add_preset(const std::string& key, const std::string& value,
                  std::vector<std::pair<std::string, std::string>> sets);
  // After the config file and the overrides: applies the chosen presets.
  void apply_presets();

  // Closest known key (for "did you mean" in errors), or "".
  std::string suggest(const std::string& key) const;

 private:
  Entry& add_entry(const std::string& key, Type t, void* p);
  std::vector<Entry> entries_;
  struct Preset {
    std::string key, value;
    std::vector<std::pair<std::string, std::string>> sets;
  };
  std::vector<Preset> presets_;
};

}  // namespace oonic
