#include "platforms/network/switch_node.h"

#include "model/core/error.h"
#include "platforms/network/switch.h"

namespace oonic::network {

namespace {

std::vector<SwitchModelRow>& rows() {
  static std::vector<SwitchModelRow> r = {
      {"pipeline",
       "the built-in switch: SwitchCore's buffer with the hooks of the switch hook registry",
       [](const SwitchBuild& b) -> std::unique_ptr<SwitchNode> {
         return std::make_unique<Switch>(b.name.c_str(), b);
       }},
  };
  return r;
}

}  // namespace

const std::vector<SwitchModelRow>& switch_model_registry() {
  return rows();
}

void add_switch_model(SwitchModelRow row) {
  for (const SwitchModelRow& r : rows())
    if (r.name == row.name)
      throw Error(msg::kConfig, "switch model '" + row.name + "' is registered already");
  rows().push_back(std::move(row));
}

const SwitchModelRow& check_switch_model(const std::string& model) {
  std::string known;
  for (const SwitchModelRow& r : rows()) {
    if (r.name == model) return r;
    known += (known.empty() ? "" : ", ") + r.name;
  }
  throw Error(msg::kConfig, "switch.model: no switch model '" + model + "' (known: " + known + ")");
}

std::unique_ptr<SwitchNode> make_switch(const std::string& model, const SwitchBuild& b) {
  return check_switch_model(model).make(b);
}

}  // namespace oonic::network
