#include "model/core/vcd.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

#include "model/core/error.h"

namespace oonic {

namespace {

std::string id_code(size_t i) {
  std::string s;
  do {
    s.push_back(static_cast<char>(33 + i % 94));
    i /= 94;
  } while (i);
  return s;
}

// Scope tree for $scope/$upscope.
struct Scope {
  std::map<std::string, std::unique_ptr<Scope>> children;
  std::vector<size_t> vars;
};

void emit_scope(FILE* f, const std::string& name, const Scope& s,
                const std::vector<std::pair<std::string, std::pair<int, std::string>>>& vars) {
  if (!name.empty()) std::fprintf(f, "$scope module %s $end\n", name.c_str());
  for (size_t v : s.vars)
    std::fprintf(f, "$var wire %d %s %s $end\n", vars[v].second.first,
                 vars[v].second.second.c_str(), vars[v].first.c_str());
  for (const auto& [n, c] : s.children) emit_scope(f, n, *c, vars);
  if (!name.empty()) std::fprintf(f, "$upscope $end\n");
}

void emit_value(FILE* f, int width, uint64_t v, const std::string& code) {
  if (width == 1) {
    std::fprintf(f, "%c%s\n", (v & 1) ? '1' : '0', code.c_str());
    return;
  }
  char buf[72];
  int n = 0;
  bool started = false;
  for (int b = width - 1; b >= 0; --b) {
    bool bit = b < 64 && ((v >> b) & 1);
    if (bit) started = true;
    if (started) buf[n++] = bit ? '1' : '0';
  }
  if (!started) buf[n++] = '0';
  buf[n] = 0;
  std::fprintf(f, "b%s %s\n", buf, code.c_str());
}

}  // namespace

const std::vector<std::string>& Vcd::known_groups() {
  static const std::vector<std::string> g{"rx", "bitmap", "dma", "control", "tx"};
  return g;
}

std::string Vcd::group_of(const std::string& full_name) {
  if (full_name.find(".bitmap_manager.") != std::string::npos) return "bitmap";
  auto a = full_name.find('.');
  if (a == std::string::npos) return "";
  auto b = full_name.find('.', a + 1);
  return full_name.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
}

int Vcd::add_var(const std::string& full_name, int width) {
  if (!groups_.empty() &&
      std::find(groups_.begin(), groups_.end(), group_of(full_name)) == groups_.end())
    return -1;
  if (vars_.size() >= 65536) throw Error(msg::kModel, "VCD: more than 65536 signals");
  vars_.push_back(Var{full_name, width, id_code(vars_.size())});
  return static_cast<int>(vars_.size() - 1);
}

void Vcd::write(const std::string& path, Cycle from, Cycle to) {
  // The stream's own buffer (no shared static state), declared first so it outlives the
  // FILE, whose close flushes through it.
  std::vector<char> buf(1 << 16);
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "w"), &std::fclose);
  if (!f) throw Error(msg::kIo, path + ": cannot write VCD");
  std::setvbuf(f.get(), buf.data(), _IOFBF, buf.size());
  std::fprintf(f.get(),
               "$comment oonic: times are whole NIC cycles x %llu ps $end\n$timescale 1ps $end\n",
               static_cast<unsigned long long>(period_ps_));
  Scope root;
  std::vector<std::pair<std::string, std::pair<int, std::string>>> leaf;
  for (size_t i = 0; i < vars_.size(); ++i) {
    std::stringstream ss(vars_[i].name);
    std::string part;
    std::vector<std::string> parts;
    while (std::getline(ss, part, '.')) parts.push_back(part);
    Scope* s = &root;
    for (size_t k = 0; k + 1 < parts.size(); ++k) {
      auto& c = s->children[parts[k]];
      if (!c) c = std::make_unique<Scope>();
      s = c.get();
    }
    s->vars.push_back(i);
    leaf.push_back({parts.back(), {vars_[i].width, vars_[i].code}});
  }
  emit_scope(f.get(), "", root, leaf);
  std::fprintf(f.get(), "$enddefinitions $end\n");

  // Stable: changes of one cycle keep the order they were recorded in.
  std::vector<Change>& ch = changes_;
  std::stable_sort(ch.begin(), ch.end(),
                   [](const Change& a, const Change& b) { return a.t() < b.t(); });
  // Last value per var at each cycle; drop non-changes. Initial values are 0.
  std::vector<uint64_t> cur(vars_.size(), 0);
  std::fprintf(f.get(), "#%llu\n$dumpvars\n", static_cast<unsigned long long>(from * period_ps_));
  size_t i = 0;
  // Apply changes before the window silently.
  while (i < ch.size() && ch[i].t() < from) cur[ch[i].var()] = ch[i].value, ++i;
  for (size_t v = 0; v < vars_.size(); ++v)
    emit_value(f.get(), vars_[v].width, cur[v], vars_[v].code);
  std::fprintf(f.get(), "$end\n");
  std::vector<uint64_t> pending(vars_.size());
  std::vector<int> touched;
  std::vector<char> is_touched(vars_.size(), 0);
  while (i < ch.size() && ch[i].t() <= to) {
    Cycle t = ch[i].t();
    touched.clear();
    for (; i < ch.size() && ch[i].t() == t; ++i) {
      int v = ch[i].var();
      if (!is_touched[v]) is_touched[v] = 1, touched.push_back(v);
      pending[v] = ch[i].value;
    }
    bool stamped = false;
    std::sort(touched.begin(), touched.end());
    for (int v : touched) {
      is_touched[v] = 0;
      if (pending[v] == cur[v]) continue;
      if (!stamped)
        std::fprintf(f.get(), "#%llu\n", static_cast<unsigned long long>(t * period_ps_)),
            stamped = true;
      cur[v] = pending[v];
      emit_value(f.get(), vars_[v].width, cur[v], vars_[v].code);
    }
  }
}

}  // namespace oonic
