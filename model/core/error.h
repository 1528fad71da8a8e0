// oonic's error type for plain C++ code (cores, config, trace input). Each error
// carries a message id (the same ids SC_REPORT_* uses in the shells, e.g.
// "oonic/config") and a message that names the file, line, key or packet.
// The CLI catches it, prints "oonic: error: <message>" and exits with status 2.
#pragma once

#include <stdexcept>
#include <string>

namespace oonic {

class Error : public std::runtime_error {
 public:
  Error(std::string id, const std::string& what) : std::runtime_error(what), id_(std::move(id)) {}
  const std::string& id() const { return id_; }

 private:
  std::string id_;
};

// Message ids, one per kind of problem.
namespace msg {
inline constexpr const char* kConfig = "oonic/config";
inline constexpr const char* kTrace = "oonic/trace";
inline constexpr const char* kSidecar = "oonic/sidecar";
inline constexpr const char* kCli = "oonic/cli";
inline constexpr const char* kIo = "oonic/io";
inline constexpr const char* kModel = "oonic/model";
}  // namespace msg

}  // namespace oonic
