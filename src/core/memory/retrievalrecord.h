#pragma once

#include <QDateTime>
#include <QString>

// One showing of an experience to the planner: the plan it was retrieved for and, once that plan's kernels
// were measured, whether any of them ran faster than the kernel the plan started from.
struct RetrievalRecord
{
    enum class Outcome { Undecided, Faster, NotFaster };

    qint64 experienceId = 0;
    QString planId;
    QString sessionId;
    int iteration = 0;
    int rank = 0; // 0-based position among the experiences shown for that plan
    Outcome outcome = Outcome::Undecided;
    QDateTime retrievedAt;
};
