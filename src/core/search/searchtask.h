#pragma once

#include <QJsonObject>
#include <QString>

// What one search optimizes and where its kernels run. Everything here is kept with the session
// (SessionRecord task/target/backend/host/run), so a resume needs nothing from today's settings or files.
struct SearchTask
{
    QString name;      // the task's name: the memory and the session key on it
    QJsonObject ref;   // EvalRequest::task, e.g. {"name": "silu"}
    QString reference; // the numpy reference source the agents see
    QString kernel;    // the starting kernel (the baseline)
    QString backend = QStringLiteral("sim");
    QString target = QStringLiteral("trn1");
    QString size = QStringLiteral("full");
    QString host; // informational: where the session ran
    double evalTimeoutSeconds = 600;

    // SessionRecord::run: the parts of the task that have no column of their own.
    QJsonObject runJson() const
    {
        return {{QStringLiteral("size"), size},
                {QStringLiteral("eval_timeout_s"), evalTimeoutSeconds},
                {QStringLiteral("reference"), reference}};
    }
};
