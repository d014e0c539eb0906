#pragma once

#include "command.h"
#include "evalbatch.h"

#include <QJsonObject>
#include <QStringList>

#include <optional>

class QCommandLineParser;

// accelopt compare A B: the unified diff of two kernels (files or candidates of the workspace) and, when both
// have evaluations, the metric deltas; the headless twin of the workbench's Compare view.
class CompareCommand : public Command
{
public:
    // One side of the comparison: a kernel file, or a candidate of the workspace (with its evaluation).
    struct Side
    {
        QString name; // what the diff's header calls it
        QString text;
        QString candidateId;
        QString sessionId;
        std::optional<Evaluation> evaluation;
    };
    // Both sides, and the benchmarks still to run for the files among them (when a task was given).
    struct Comparison
    {
        Side sides[2];
        int context = 3;
        bool taskGiven = false;
        QList<EvalBatch::Item> items; // to evaluate, in order
        QList<int> benchmarked;       // the side each item is for
        void takeResults(const QList<Evaluation> &results);
        QStringList missing() const;  // why there are no deltas; empty when both sides measured
        bool benchmarkFailed() const; // an evaluation asked for here did not measure
        QJsonObject toJson() const;   // what --json prints
    };

    QString name() const override { return QStringLiteral("compare"); }
    QString summary() const override
    {
        return QStringLiteral("Compare two kernels: the diff, and the metric deltas of their evaluations.");
    }
    int run(const QStringList &arguments) override;

    // The command's arguments and options (also what `accelopt mcp`'s compare tool is parsed with).
    static void addOptions(QCommandLineParser &parser);
    // Resolves both sides and the benchmarks to run: 0, or 2 for an argument that names nothing, 1 for a
    // workspace database that cannot be opened; `error` says why.
    static int prepare(const QCommandLineParser &parser, Comparison &comparison, QString &error);
};
