#pragma once
// Owners of memory that lives on one backend's device (host memory for the CPU backend).

#include <cstddef>
#include <functional>
#include <memory>
#include <utility>

namespace mbir {

// Move-only owner of one device allocation; the backend that made it supplies the release function.
class DeviceAllocation
{
public:
  DeviceAllocation() = default;
  DeviceAllocation(void * pointer, std::size_t bytes, std::function<void(void *, std::size_t)> release)
    : m_Pointer(pointer)
    , m_Bytes(bytes)
    , m_Release(std::move(release))
  {}
  DeviceAllocation(const DeviceAllocation &) = delete;
  DeviceAllocation &
  operator=(const DeviceAllocation &) = delete;
  DeviceAllocation(DeviceAllocation && other) noexcept { swap(other); }
  DeviceAllocation &
  operator=(DeviceAllocation && other) noexcept
  {
    DeviceAllocation moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~DeviceAllocation()
  {
    if (m_Pointer)
    {
      m_Release(m_Pointer, m_Bytes);
    }
  }

  // Keeps `owner` (the backend that made the memory) alive until the memory is released, so that an allocation
  // may outlive every other handle on its backend.
  void
  keepAlive(std::shared_ptr<const void> owner)
  {
    m_Owner = std::move(owner);
  }

  void *
  get() const
  {
    return m_Pointer;
  }
  std::size_t
  bytes() const
  {
    return m_Bytes;
  }

private:
  void
  swap(DeviceAllocation & other) noexcept
  {
    std::swap(m_Pointer, other.m_Pointer);
    std::swap(m_Bytes, other.m_Bytes);
    std::swap(m_Release, other.m_Release);
    std::swap(m_Owner, other.m_Owner);
  }

  void *                                   m_Pointer = nullptr;
  std::size_t                              m_Bytes = 0;
  std::function<void(void *, std::size_t)> m_Release;
  std::shared_ptr<const void>              m_Owner; // destroyed after m_Release ran (the destructor's body)
};

// A typed array in device memory.
template<typename T>
class DeviceArray
{
public:
  DeviceArray() = default;
  DeviceArray(DeviceAllocation memory, std::size_t count)
    : m_Memory(std::move(memory))
    , m_Count(count)
  {}

  T *
  data()
  {
    return static_cast<T *>(m_Memory.get());
  }
  const T *
  data() const
  {
    return static_cast<const T *>(m_Memory.get());
  }
  std::size_t
  size() const
  {
    return m_Count;
  }
  bool
  empty() const
  {
    return m_Count == 0;
  }

private:
  DeviceAllocation m_Memory;
  std::size_t      m_Count = 0;
};

} // namespace mbir
