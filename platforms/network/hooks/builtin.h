// The built-in rows of the switch hook registry (switch_hook.cpp lists them in
// pipeline order): one function per hook file.
#pragma once

#include "platforms/network/switch_hook.h"

namespace oonic::network::hooks {

SwitchHookRow pfc_row();          // pfc.cpp
SwitchHookRow red_ecn_row();      // red_ecn.cpp
SwitchHookRow themis_row();       // themis_hook.cpp
SwitchHookRow int_stamp_row();    // int_stamp.cpp
SwitchHookRow port_faults_row();  // port_faults.cpp
SwitchHookRow wire_loss_row();    // wire_loss.cpp
SwitchHookRow trim_row();         // trim.cpp

}  // namespace oonic::network::hooks
