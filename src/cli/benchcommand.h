#pragma once

#include "command.h"
#include "evalbatch.h"

class QCommandLineParser;

// accelopt bench KERNEL.py --task NAME|DIR: one kernel, one task, on a host.
class BenchCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("bench"); }
    QString summary() const override
    {
        return QStringLiteral("Evaluate one kernel on a task: correctness, latency, % of peak.");
    }
    int run(const QStringList &arguments) override;

    // The command's positional argument and options (also what `accelopt mcp`'s bench tool is parsed with).
    static void addOptions(QCommandLineParser &parser);
    // Every check made before anything runs: the kernel file, its task (named, or found from the file as F5
    // does), the common options and the host. 0 with `item` ready; 2 (a usage error) with `error`. `note`
    // says how the task was found, when it was.
    static int prepare(const QCommandLineParser &parser, EvalBatch::Item &item, QString &error, QString &note);
};
