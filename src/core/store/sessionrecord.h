#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QString>

// One optimization run as the workspace database keeps it. `config` holds the search settings as they were at
// the start (B, N, K, T, F, TopK, ExpN, thresholds, budgets), so a resumed or reported session never depends
// on today's settings. currentIteration/currentStep say where a resume starts.
struct SessionRecord
{
    enum class Status
    {
        Running,
        Stopped,
        Finished,
        Failed,  // ended without doing its job: an unusable starting kernel, models that all refused
        Crashed, // written by older versions for what is now Failed; a killed process leaves Running
    };

    QString id; // a UUID without braces
    QString taskName;
    QJsonObject task; // the task reference, as EvalRequest::task carries it
    QString target;
    QString backend;
    QString host;
    QJsonObject config;
    // How the session's kernels are run and shown to the agents, so a resume needs nothing from today's
    // settings or files: {"size", "eval_timeout_s", "reference" (the numpy source the agents saw)}.
    QJsonObject run;
    Status status = Status::Running;
    QString stopReason; // StopRules::name of why it ended ("iterations", "money_budget", ...); empty while
                        // running
    QDateTime created;
    QDateTime updated;
    int currentIteration = 0;
    QString currentStep;

    static QString statusName(Status status)
    {
        switch (status) {
        case Status::Stopped:
            return QStringLiteral("stopped");
        case Status::Finished:
            return QStringLiteral("finished");
        case Status::Failed:
            return QStringLiteral("failed");
        case Status::Crashed:
            return QStringLiteral("crashed");
        case Status::Running:
            break;
        }
        return QStringLiteral("running");
    }
    static bool statusFromName(const QString &name, Status &status)
    {
        for (Status s : {Status::Running, Status::Stopped, Status::Finished, Status::Failed, Status::Crashed})
            if (statusName(s) == name) {
                status = s;
                return true;
            }
        return false;
    }
};
