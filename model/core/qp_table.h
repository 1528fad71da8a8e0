// Per-QP state that costs what a NIC uses, not nic.max_qps (issue 30: a host's memory
// proportional to the QPs it opens). Indexed 0..size()-1 like the vector it replaces; an
// entry comes into being (a copy of the table's initial value) when it is first written,
// in chunks of kChunk, so a reference to an entry stays valid as the table grows. Reading
// an entry never written gives the initial value. A NIC hands QP indexes out from 0, so
// the chunks made cover the QPs opened.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace oonic {

template <class T>
class QpTable {
 public:
  static constexpr uint32_t kChunk = 16;
  explicit QpTable(uint32_t size = 0, T init = T{}) : size_(size), init_(std::move(init)) {}
  QpTable(const QpTable& o) : size_(o.size_), init_(o.init_) {
    for (const auto& c : o.chunks_) {
      chunks_.push_back(std::make_unique<T[]>(kChunk));
      for (uint32_t k = 0; k < kChunk; ++k) chunks_.back()[k] = c[k];
    }
  }
  QpTable& operator=(const QpTable& o) {
    if (this != &o) *this = QpTable(o);
    return *this;
  }
  QpTable(QpTable&&) noexcept = default;
  QpTable& operator=(QpTable&&) noexcept = default;

  // The QPs it may hold (a vector's size()).
  uint32_t size() const { return size_; }
  // Entries made so far (a multiple of kChunk, at most the chunks' worth).
  uint32_t made() const { return static_cast<uint32_t>(chunks_.size()) * kChunk; }
  T& operator[](uint32_t i) {
    const uint32_t c = i / kChunk;
    if (c >= chunks_.size()) grow(c);
    return chunks_[c][i % kChunk];
  }
  const T& operator[](uint32_t i) const {
    const uint32_t c = i / kChunk;
    return c < chunks_.size() ? chunks_[c][i % kChunk] : init_;
  }
  const T& initial() const { return init_; }
  // f(i, entry) for every entry made, in index order (entries beyond size() excluded).
  template <class F>
  void each(F&& f) {
    for (uint32_t i = 0; i < made() && i < size_; ++i) f(i, (*this)[i]);
  }
  template <class F>
  void each(F&& f) const {
    for (uint32_t i = 0; i < made() && i < size_; ++i) f(i, (*this)[i]);
  }

 private:
  void grow(uint32_t c) {
    while (chunks_.size() <= c) {
      chunks_.push_back(std::make_unique<T[]>(kChunk));
      for (uint32_t k = 0; k < kChunk; ++k) chunks_.back()[k] = init_;
    }
  }
  uint32_t size_;
  T init_;
  std::vector<std::unique_ptr<T[]>> chunks_;
};

}  // namespace oonic
