// Errors and warnings from SystemC shells go through SC_REPORT_* with oonic's
// message ids (model/core/error.h). install_report_handler() makes errors throw
// so the CLI can print them and exit 2 instead of aborting.
#pragma once

#include <string>
#include <systemc>

#include "model/core/error.h"

namespace oonic {

inline void install_report_handler() {
  sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_THROW);
  sc_core::sc_report_handler::set_actions(sc_core::SC_FATAL, sc_core::SC_THROW);
  sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DISPLAY);
  // SystemC's own info/deprecation chatter stays off stdout.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
}

inline void report_error(const char* id, const std::string& what) {
  SC_REPORT_ERROR(id, what.c_str());
}
inline void report_warning(const char* id, const std::string& what) {
  SC_REPORT_WARNING(id, what.c_str());
}

}  // namespace oonic
