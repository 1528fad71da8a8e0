#include "model/ornic/qp_context.h"

#include <string>

#include "model/core/error.h"

namespace oonic::ornic {

uint32_t QpContextTable::add(Cycle t, const QpContext& ctx) {
  if (ctx_.size() >= max_qps_)
    throw Error(msg::kConfig, "QP 0x" + std::to_string(ctx.qpn) + ": all nic.max_qps (" +
                                  std::to_string(max_qps_) + ") contexts are in use");
  if (index_.count(ctx.qpn))
    throw Error(msg::kConfig, "QP " + std::to_string(ctx.qpn) + " set up twice");
  index_[ctx.qpn] = static_cast<uint32_t>(ctx_.size());
  ctx_.push_back(ctx);
  sram_->write(t, sram_->params().width_bits);
  sram_->occupy(t, sram_->params().width_bits);
  return static_cast<uint32_t>(ctx_.size() - 1);
}

}  // namespace oonic::ornic
