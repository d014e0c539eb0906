#pragma once

#include <QString>
#include <QStringList>

// One `accelopt <name>` subcommand. run() gets the arguments after the command name, may spin its own event
// loop for asynchronous core work, prints to stdout/stderr and returns the process exit status
// (0 ok, 1 the work failed, 2 bad usage).
class Command
{
public:
    virtual ~Command() = default;
    virtual QString name() const = 0;
    virtual QString summary() const = 0;
    virtual int run(const QStringList &arguments) = 0;
};
