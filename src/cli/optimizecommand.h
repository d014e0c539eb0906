#pragma once

#include "command.h"
#include "searchconsole.h"

class QCommandLineParser;

// accelopt optimize --task NAME|DIR [...]: one optimization session on a host, progress on stdout.
class OptimizeCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("optimize"); }
    QString summary() const override
    {
        return QStringLiteral(
            "Optimize a task's kernel with the beam search; prints progress and the session id.");
    }
    int run(const QStringList &arguments) override;

    // The command's options (also what `accelopt mcp`'s optimize_start tool is parsed with).
    static void addOptions(QCommandLineParser &parser);
    // Every check made before the search starts: the task (named, or found from --kernel), the kernel, the
    // evaluation settings, the search settings and the run's options. 0, or 2 (a usage error) with `error`.
    // `note` says how the task was found, when it was.
    static int prepare(const QCommandLineParser &parser, SearchTask &task, SearchConfig &config,
                       SearchConsole::Options &options, QString &error, QString &note);
};
