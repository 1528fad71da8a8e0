// Parameters a plug-in owns: a registry row (a rate core, a switch hook, ...) names a
// params type with a describe(ParamTable&); the owner's params struct holds one of
// each, by value (a copy of the struct copies them), found by the row's name. Adding
// a plug-in with parameters is then its core and its row: the row brings its keys.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/core/params.h"

namespace oonic {

class PluginParams {
 public:
  virtual ~PluginParams() = default;
  virtual void describe(ParamTable& t) = 0;
  // Cross checks once the table is applied; throws oonic::Error naming the key.
  virtual void validate() const = 0;
  virtual std::unique_ptr<PluginParams> clone() const = 0;
};

namespace detail {
template <class P, class = void>
struct HasValidate : std::false_type {};
template <class P>
struct HasValidate<P, std::void_t<decltype(std::declval<const P&>().validate())>> : std::true_type {
};
}  // namespace detail

// P: a params struct with void describe(ParamTable&) (and, if it checks anything, void
// validate() const).
template <class P>
class PluginParamsOf final : public PluginParams {
 public:
  P value;
  void describe(ParamTable& t) override { value.describe(t); }
  void validate() const override {
    if constexpr (detail::HasValidate<P>::value) value.validate();
  }
  std::unique_ptr<PluginParams> clone() const override {
    return std::make_unique<PluginParamsOf>(*this);
  }
};

template <class P>
std::unique_ptr<PluginParams> make_plugin_params() {
  return std::make_unique<PluginParamsOf<P>>();
}

// The params of several plug-ins, in the order added (the order of their keys in the
// table). A copy is deep. Assigning into a set already described into a ParamTable
// re-creates its params, and the table's bindings would dangle: copy a described
// struct, never assign into one.
class PluginParamSet {
 public:
  PluginParamSet() = default;
  PluginParamSet(const PluginParamSet& o) { *this = o; }
  PluginParamSet& operator=(const PluginParamSet& o) {
    if (this == &o) return *this;
    items_.clear();
    for (const auto& [name, p] : o.items_) items_.emplace_back(name, p->clone());
    return *this;
  }
  PluginParamSet(PluginParamSet&&) = default;
  PluginParamSet& operator=(PluginParamSet&&) = default;

  void add(std::string owner, std::unique_ptr<PluginParams> p) {
    items_.emplace_back(std::move(owner), std::move(p));
  }
  bool has(const std::string& owner) const {
    for (const auto& it : items_)
      if (it.first == owner) return true;
    return false;
  }
  // The params `owner` added, as P; null when it added none (or another type).
  template <class P>
  const P* find(const std::string& owner) const {
    for (const auto& [name, p] : items_)
      if (name == owner)
        if (auto* x = dynamic_cast<const PluginParamsOf<P>*>(p.get())) return &x->value;
    return nullptr;
  }
  template <class P>
  P* find(const std::string& owner) {
    return const_cast<P*>(static_cast<const PluginParamSet*>(this)->find<P>(owner));
  }
  void describe(ParamTable& t) {
    for (auto& it : items_) it.second->describe(t);
  }
  void validate() const {
    for (const auto& it : items_) it.second->validate();
  }

 private:
  std::vector<std::pair<std::string, std::unique_ptr<PluginParams>>> items_;
};

}  // namespace oonic
