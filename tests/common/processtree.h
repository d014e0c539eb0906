#pragma once

#include <QList>

#include <sys/types.h>

// The process tree as /proc shows it, for tests that must kill what a server or a runner started.
class ProcessTree
{
public:
    static QList<pid_t> children(pid_t parent);
    static QList<pid_t> descendants(pid_t root);
};
