#pragma once

#include "model/evaluation.h"

#include <QJsonObject>
#include <QString>

#include <optional>

// Two kernels put side by side (the Compare view, `accelopt compare`, the Summarize button): the left one is
// the slower or older, the right one the faster or newer. Each side is a file, an editor's text or a candidate
// of the workspace, with its evaluation when it has one.
struct ComparePair
{
    struct Side
    {
        QString name; // for people: a file name, "candidate 1a2b3c4d (iteration 2)"
        QString text;
        QString filePath; // when it came from a file
        QString candidateId;
        QString sessionId;
        std::optional<Evaluation> evaluation;

        bool measured() const { return evaluation && evaluation->ok() && evaluation->latencyMeanMs; }
    };
    Side left;
    Side right;
    QString task;        // the task both kernels solve, when known (its name)
    QJsonObject taskRef; // EvalRequest::task, for measuring them
    QString target;

    bool measured() const { return left.measured() && right.measured(); }
    // left latency / right latency, as measured: > 1 when the right kernel is faster.
    std::optional<double> speedup() const
    {
        if (!measured() || *right.evaluation->latencyMeanMs <= 0)
            return std::nullopt;
        return *left.evaluation->latencyMeanMs / *right.evaluation->latencyMeanMs;
    }
};
