#pragma once

#include <QDir>
#include <QSet>
#include <QString>

#include <sys/types.h>

// Work that holds until the test lets it go: a host interpreter (HostConfig::python) that runs the real runner
// behind fixtures/runner/gated_runner.py, which keeps every result line back until the gate is opened or a token
// is given. A test that needs "an evaluation still running" uses this instead of a slow kernel, so it passes on a
// machine of any speed (tests/README.md, "Work is not a clock").
class RunnerGate
{
public:
    // Makes dir (the gate's files) and, beside it, the interpreter script. Starts closed.
    explicit RunnerGate(const QString &dir);

    QString interpreter() const { return m_interpreter; }
    void open();                // every held and later result passes
    void release(int count = 1); // that many more results pass
    // Runners holding a result right now (live processes only: a killed one's marker may outlive it briefly).
    QSet<pid_t> holders() const;

private:
    QDir m_dir;
    QString m_interpreter;
    int m_tokens = 0;
};
