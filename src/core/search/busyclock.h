#pragma once

#include <QElapsedTimer>
#include <QtGlobal>

// The time a search spends in its own code (prompt building, parsing, selection, store writes), not waiting
// for models or hosts: the orchestration overhead the benchmarks watch. A Scope is entered by every handler;
// nested scopes count once.
class BusyClock
{
public:
    class Scope
    {
    public:
        explicit Scope(BusyClock &clock);
        ~Scope();
        Scope(const Scope &) = delete;
        Scope &operator=(const Scope &) = delete;

    private:
        BusyClock &m_clock;
        QElapsedTimer m_wall;
        qint64 m_cpuStart = 0;
    };

    void reset() { m_ns = m_cpuNs = 0; }
    double seconds() const { return m_ns / 1e9; }
    double cpuSeconds() const { return m_cpuNs / 1e9; } // of it, on the thread's CPU clock

private:
    static qint64 threadCpuNs();
    qint64 m_ns = 0;
    qint64 m_cpuNs = 0;
    int m_depth = 0;
};
