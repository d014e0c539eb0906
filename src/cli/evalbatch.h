#pragma once

#include "model/evalrequest.h"
#include "model/evaluation.h"

#include <QList>

#include <functional>
#include <QString>

class QCommandLineParser;

// What bench and suite share: choosing the host from --host and friends, and running a batch of evaluations on
// a HostPool with a local event loop (ResultTable prints them).
class EvalBatch
{
public:
    struct Item
    {
        QString label; // the task name shown in output
        EvalRequest request;
    };

    // Adds --host, --backend, --target, --timing-only, --size, --timeout, --json, --jobs.
    static void addCommonOptions(QCommandLineParser &parser);
    // Applies the common options to a request; false with `error` on a bad value.
    static bool applyOptions(const QCommandLineParser &parser, EvalRequest &request, QString &error);
    // Resolves a --task value: an existing folder becomes {"dir": ...}; otherwise a task name, which must be
    // one of the tasks in DataPaths::tasksDir(). --dataset DIR makes it {"dataset": DIR, "name": NAME}.
    static bool taskReference(const QString &task, const QString &dataset, QJsonObject &out, QString &error);

    // False with `error` when --host names no configured host: a usage error, found before anything runs. A
    // hosts file that cannot be read passes here; run() says why it cannot be read.
    static bool hostKnown(const QCommandLineParser &parser, QString &error);

    // Runs every item; returns the evaluations in item order, and calls `finished` (item index, result) as
    // each one ends. Exit status is the caller's business.
    static QList<Evaluation> run(const QCommandLineParser &parser, const QList<Item> &items, QString &error,
                                 const std::function<void(int, const Evaluation &)> &finished = {});
};
