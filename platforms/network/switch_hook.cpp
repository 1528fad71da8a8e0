#include "platforms/network/switch_hook.h"

#include "model/core/error.h"
#include "platforms/network/hooks/builtin.h"

namespace oonic::network {

std::vector<SwitchHookRow>& switch_hook_registry() {
  // Pipeline order: each stage calls its hooks in this order.
  static std::vector<SwitchHookRow> rows = {
      hooks::pfc_row(),          // ingress (PAUSE in), buffered/dequeued (XOFF/XON out)
      hooks::red_ecn_row(),      // mark
      hooks::themis_row(),       // admission, mark (after RED: the np takes RED's marks)
      hooks::int_stamp_row(),    // dequeued (HPCC's INT record)
      hooks::port_faults_row(),  // egress (a port down, PSN rules)
      hooks::wire_loss_row(),    // egress (random loss)
      hooks::trim_row(),         // admission (trimmed headers' priority, trim_newest_p), buffered
  };
  return rows;
}

void add_switch_hook(SwitchHookRow row) {
  std::vector<SwitchHookRow>& rows = switch_hook_registry();
  for (const SwitchHookRow& r : rows)
    if (std::string(r.name) == row.name)
      throw Error(msg::kConfig,
                  std::string("switch hook '") + row.name + "' is registered already");
  rows.push_back(std::move(row));
}

PluginParamSet switch_hook_params() {
  PluginParamSet s;
  for (const SwitchHookRow& r : switch_hook_registry())
    if (r.params) s.add(r.name, r.params());
  return s;
}

void describe_switch_hooks(ParamTable& t) {
  for (const SwitchHookRow& r : switch_hook_registry())
    if (r.describe) r.describe(t);
}

}  // namespace oonic::network
