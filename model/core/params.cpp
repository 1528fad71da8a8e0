#include "model/core/params.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "model/core/error.h"
#include "model/core/number.h"

namespace oonic {

namespace {

std::string fmt_double(double v) {
  return format_number(v);
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string format_number(double v) {
  // The shortest text that reads back as the same double.
  char buf[32];
  for (int prec = 6; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

ParamTable::Entry& ParamTable::add_entry(const std::string& key, Type t, void* p) {
  if (find(key)) throw Error(msg::kConfig, "parameter '" + key + "' registered twice");
  entries_.push_back(Entry{key, t, p, "", "", 0, 0, {}, "", "default", 64});
  return entries_.back();
}

void ParamTable::add(const std::string& key, uint32_t* p, const char* unit, const char* desc,
                     double min, double max) {
  Entry& e = add_entry(key, Type::kUInt, p);
  e.unit = unit, e.desc = desc, e.min = min, e.max = max, e.width = 32;
  e.default_text = value_text(e);
}
void ParamTable::add(const std::string& key, uint64_t* p, const char* unit, const char* desc,
                     double min, double max) {
  Entry& e = add_entry(key, Type::kUInt, p);
  e.unit = unit, e.desc = desc, e.min = min, e.max = max, e.width = 64;
  e.default_text = value_text(e);
}
void ParamTable::add(const std::string& key, double* p, const char* unit, const char* desc,
                     double min, double max) {
  Entry& e = add_entry(key, Type::kDouble, p);
  e.unit = unit, e.desc = desc, e.min = min, e.max = max;
  e.default_text = value_text(e);
}
void ParamTable::add(const std::string& key, bool* p, const char* desc) {
  Entry& e = add_entry(key, Type::kBool, p);
  e.unit = "bool", e.desc = desc;
  e.default_text = value_text(e);
}
void ParamTable::add(const std::string& key, std::string* p, const char* desc,
                     std::vector<std::string> choices) {
  Entry& e = add_entry(key, Type::kString, p);
  e.unit = choices.empty() ? "string" : "enum", e.desc = desc, e.choices = std::move(choices);
  e.default_text = value_text(e);
}

const ParamTable::Entry* ParamTable::find(const std::string& key) const {
  for (const Entry& e : entries_)
    if (e.key == key) return &e;
  return nullptr;
}

std::string ParamTable::suggest(const std::string& key) const {
  std::string best;
  size_t best_d = ~size_t{0};
  for (const Entry& e : entries_) {
    size_t d = edit_distance(key, e.key);
    if (d < best_d) best_d = d, best = e.key;
  }
  return best_d <= std::max<size_t>(3, key.size() / 4) ? best : std::string();
}

std::string ParamTable::value_text(const Entry& e) const {
  switch (e.type) {
    case Type::kUInt:
      return e.width == 32 ? std::to_string(*static_cast<uint32_t*>(e.ptr))
                           : std::to_string(*static_cast<uint64_t*>(e.ptr));
    case Type::kDouble:
      return fmt_double(*static_cast<double*>(e.ptr));
    case Type::kBool:
      return *static_cast<bool*>(e.ptr) ? "true" : "false";
    case Type::kString:
      return *static_cast<std::string*>(e.ptr);
  }
  return "";
}

void ParamTable::add_preset(const std::string& key, const std::string& value,
                            std::vector<std::pair<std::string, std::string>> sets) {
  presets_.push_back({key, value, std::move(sets)});
}

void ParamTable::apply_presets() {
  for (const Preset& p : presets_) {
    const Entry* sel = find(p.key);
    if (!sel || value_text(*sel) != p.value) continue;
    for (const auto& [k, v] : p.sets) {
      const Entry* e = find(k);
      if (!e || e->source != "default") continue;  // set explicitly: that wins
      set(k, v, "preset " + p.key + "=" + p.value);
    }
  }
}

void ParamTable::set(const std::string& key, const std::string& text, const std::string& where) {
  auto* e = const_cast<Entry*>(find(key));
  std::string at = where.empty() ? "" : where + ": ";
  if (!e) {
    std::string s = suggest(key);
    throw Error(msg::kConfig, at + "unknown parameter '" + key + "'" +
                                  (s.empty() ? "" : " (did you mean '" + s + "'?)") +
                                  "; `oonic params` lists them all");
  }
  auto bad = [&](const std::string& why) {
    return Error(msg::kConfig, at + "parameter '" + key + "': " + why);
  };
  switch (e->type) {
    case Type::kUInt: {
      // Sizes (bytes, bits) take K/M/G like every size on the command line.
      const NumberSuffix sfx =
          e->unit == "byte" || e->unit == "bit" ? NumberSuffix::kBinary : NumberSuffix::kNone;
      const std::optional<uint64_t> parsed = parse_uint(text, sfx);
      if (!parsed)
        throw bad(std::string("expected ") + number_syntax(sfx) + ", got '" + text + "'");
      const uint64_t v = *parsed;
      if (static_cast<double>(v) < e->min || static_cast<double>(v) > e->max)
        throw bad("value " + text + " out of range [" + fmt_double(e->min) + ", " +
                  fmt_double(e->max) + "] " + e->unit);
      if (e->width == 32)
        *static_cast<uint32_t*>(e->ptr) = static_cast<uint32_t>(v);
      else
        *static_cast<uint64_t*>(e->ptr) = v;
      break;
    }
    case Type::kDouble: {
      const std::optional<double> parsed = parse_real(text);  // the shared number rule
      if (!parsed) throw bad("expected a number, got '" + text + "'");
      const double v = *parsed;
      if (v < e->min || v > e->max)
        throw bad("value " + text + " out of range [" + fmt_double(e->min) + ", " +
                  fmt_double(e->max) + "] " + e->unit);
      *static_cast<double*>(e->ptr) = v;
      break;
    }
    case Type::kBool: {
      std::string t = text;
      std::transform(t.begin(), t.end(), t.begin(), ::tolower);
      if (t == "true" || t == "1" || t == "yes" || t == "on")
        *static_cast<bool*>(e->ptr) = true;
      else if (t == "false" || t == "0" || t == "no" || t == "off")
        *static_cast<bool*>(e->ptr) = false;
      else
        throw bad("expected true or false, got '" + text + "'");
      break;
    }
    case Type::kString: {
      // Names, lists and rules only: printable ASCII, so the resolved config.yaml
      // reads back to the same value and nothing invisible ends up in a result.
      for (unsigned char ch : text)
        if (ch < 0x20 || ch > 0x7e)
          throw bad("the value has a non-printable or non-ASCII character (byte 0x" +
                    std::string(1, "0123456789abcdef"[ch >> 4]) +
                    std::string(1, "0123456789abcdef"[ch & 15]) + ")");
      if (!e->choices.empty() &&
          std::find(e->choices.begin(), e->choices.end(), text) == e->choices.end()) {
        std::string all;
        for (auto& c : e->choices) all += (all.empty() ? "" : ", ") + c;
        throw bad("'" + text + "' is not one of: " + all);
      }
      *static_cast<std::string*>(e->ptr) = text;
      break;
    }
  }
  e->source = where.empty() ? "--set" : where;
}

}  // namespace oonic
