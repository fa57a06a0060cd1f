// How many threads a CPU backend takes by default (Backend.h, defaultCpuThreads): the CPUs this process may use,
// less those other processes keep busy, so that a recon on a shared machine neither spins against other work nor
// oversubscribes a container's or a Slurm job's CPU share.

#include "CpuThreads.h"
#include "mbir/Backend.h"
#include "mbir/Config.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sched.h>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>

#if MBIR_USE_OPENMP
#  include <omp.h>
#endif

namespace mbir {
namespace {

// The CPUs of this process's affinity mask (taskset, Slurm's --cpu-bind, numactl), else the online ones.
int
affinityCpus()
{
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
  {
    return std::max(1, CPU_COUNT(&set));
  }
  return std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
}

// The cgroup's CPU quota in CPUs (cgroup v2 cpu.max "quota period", v1 cfs files), 0 when there is none.
double
cgroupCpuQuota()
{
  std::ifstream v2("/sys/fs/cgroup/cpu.max");
  std::string   quota;
  double        period = 0.0;
  if (v2 >> quota >> period)
  {
    return quota == "max" || period <= 0.0 ? 0.0 : std::stod(quota) / period;
  }
  std::ifstream v1Quota("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"), v1Period("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
  double        q = 0.0;
  if (v1Quota >> q && v1Period >> period && q > 0.0 && period > 0.0)
  {
    return q / period;
  }
  return 0.0;
}

// Runnable tasks of the whole machine (/proc/loadavg, field 4 "running/total"), less this process's own.
int
runnableElsewhere()
{
  std::ifstream loadavg("/proc/loadavg");
  double        a, b, c;
  int           running = 0;
  char          slash;
  if (!(loadavg >> a >> b >> c >> running >> slash))
  {
    return 0;
  }
  int own = 0;
  if (DIR * tasks = opendir("/proc/self/task"))
  {
    while (const dirent * task = readdir(tasks))
    {
      std::ifstream stat(std::string("/proc/self/task/") + task->d_name + "/stat");
      std::string   text;
      if (task->d_name[0] != '.' && std::getline(stat, text))
      {
        const std::size_t close = text.rfind(')'); // the state follows the command name in parentheses
        own += close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'R';
      }
    }
    closedir(tasks);
  }
  return std::max(0, running - own);
}

} // namespace

int
cpuThreadBudget(int usableCpus, double cpuQuota, int onlineCpus, int busyElsewhere)
{
  int threads = std::max(1, usableCpus);
  if (cpuQuota > 0.0)
  {
    threads = std::min(threads, std::max(1, static_cast<int>(std::ceil(cpuQuota - 1e-6))));
  }
  // Other work takes CPUs of the whole machine; ours are short only once the free ones are fewer than ours.
  return std::max(1, std::min(threads, onlineCpus - busyElsewhere));
}

int
defaultCpuThreads()
{
  if (const char * value = std::getenv("MBIR_NUM_THREADS"); value && *value)
  {
    char *     end = nullptr;
    const long n = std::strtol(value, &end, 10);
    if (*end != '\0' || n < 1 || n > 65536)
    {
      throw std::runtime_error("MBIR_NUM_THREADS=" + std::string(value) +
                               ": not a thread count; give a positive integer, or unset it for the default "
                               "(the CPUs this process may use, less those busy with other work)");
    }
    return static_cast<int>(n);
  }
#if MBIR_USE_OPENMP
  if (const char * omp = std::getenv("OMP_NUM_THREADS"); omp && *omp)
  {
    return std::max(1, omp_get_max_threads());
  }
#else
  return 1;
#endif
  // Measured once per process, so that every device, transpose and preprocessing loop takes the same count.
  static const int measured = [] {
    // The fewest busy over a few samples: a task that runs for a moment must not halve a long recon.
    int busy = runnableElsewhere();
    for (int sample = 1; sample < 5 && busy > 0; ++sample)
    {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      busy = std::min(busy, runnableElsewhere());
    }
    return cpuThreadBudget(
      affinityCpus(), cgroupCpuQuota(), static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))), busy);
  }();
  return measured;
}

ScopedCpuThreads::ScopedCpuThreads()
  : m_Previous(1)
{
#if MBIR_USE_OPENMP
  m_Previous = omp_get_max_threads();
  omp_set_num_threads(defaultCpuThreads());
#endif
}

ScopedCpuThreads::~ScopedCpuThreads()
{
#if MBIR_USE_OPENMP
  omp_set_num_threads(m_Previous);
#endif
}

} // namespace mbir
