// Configuration: a YAML file of nested maps whose leaves are parameters
// (`rx: {parser: {latency: 4}}` sets rx.parser.latency), then `--set a.b=v`
// overrides, applied to a ParamTable. The resolved configuration (every
// parameter, with where its value came from) is written back as YAML.
#pragma once

#include <string>
#include <vector>

#include "model/core/params.h"

namespace oonic {

// Apply every leaf of a YAML file. Errors name FILE:LINE and the key.
void apply_config_file(ParamTable& table, const std::string& path);
// Apply "a.b.c=value" (value parsed as a YAML scalar).
void apply_override(ParamTable& table, const std::string& assignment);
// What every command does with its parameters: the config file (none if path is
// empty), then each override in order, then the presets' defaults for keys left unset.
void apply_config(ParamTable& table, const std::string& path, const std::vector<std::string>& sets);
// Nested YAML of every parameter with its value; comments give unit, source.
std::string resolved_yaml(const ParamTable& table);
// Human listing for `oonic params`: key, default, unit, range, description.
std::string params_listing(const ParamTable& table, bool markdown);

}  // namespace oonic
