#pragma once

#include "command.h"
#include "port/kernelport.h"

class QCommandLineParser;

// accelopt port KERNEL --task T: the classic kernel ported to the current NKI API (rules, else the executor
// model), kept only when nkisim finds it numerically equal to the original.
class PortCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("port"); }
    QString summary() const override
    {
        return QStringLiteral("Port a classic NKI kernel (neuronxcc.nki) to the current API (nki), checked equal "
                              "on nkisim.");
    }
    int run(const QStringList &arguments) override;

    // The command's argument and options (also what `accelopt mcp`'s port tool is parsed with).
    static void addOptions(QCommandLineParser &parser);
    // Every check made before anything runs: 0 with `request` ready and `outPath` where to write (empty when
    // there is no --out and not `defaultOut`); 2 (a usage error) with `error`.
    static int prepare(const QCommandLineParser &parser, KernelPort::Request &request, QString &outPath,
                       QString &error, bool defaultOut);
    // Writes the port atomically; false with `error`.
    static bool write(const QString &outPath, const QString &kernel, QString &error);
};
