// A core's reference to another block's interface that cannot be given at construction
// (the other block is built later: the blocks of a NIC call each other both ways). It is
// bound once, by name, where the system is assembled — as SystemC binds ports — and the
// assembly checks that every link is bound before the simulation starts. Binding twice,
// or checking an unbound link, is an error naming the link. Plain C++.
#pragma once

#include <string>

#include "model/core/error.h"

namespace oonic {

template <class I>
class Link {
 public:
  explicit Link(std::string name) : name_(std::move(name)) {}
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;
  void bind(I& target) {
    if (p_) throw Error(msg::kModel, "link " + name_ + " bound twice");
    p_ = &target;
  }
  void check() const {
    if (!p_) throw Error(msg::kModel, "link " + name_ + " was never bound");
  }
  // Unchecked on the hot path: check() ran when the system was assembled.
  I* operator->() const { return p_; }
  I& operator*() const { return *p_; }
  bool bound() const { return p_ != nullptr; }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  I* p_ = nullptr;
};

}  // namespace oonic
