#include "search/busyclock.h"

#include <ctime>

BusyClock::Scope::Scope(BusyClock &clock) : m_clock(clock)
{
    if (m_clock.m_depth++ == 0) {
        m_wall.start();
        m_cpuStart = threadCpuNs();
    }
}

BusyClock::Scope::~Scope()
{
    if (--m_clock.m_depth == 0) {
        m_clock.m_ns += m_wall.nsecsElapsed();
        m_clock.m_cpuNs += threadCpuNs() - m_cpuStart;
    }
}

qint64 BusyClock::threadCpuNs()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return qint64(t.tv_sec) * 1000000000 + t.tv_nsec;
}
