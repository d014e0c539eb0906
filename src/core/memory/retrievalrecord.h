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

    // As the memory database keeps it: "faster", "not_faster", and empty (NULL) while undecided.
    static QString outcomeName(Outcome outcome)
    {
        return outcome == Outcome::Faster      ? QStringLiteral("faster")
               : outcome == Outcome::NotFaster ? QStringLiteral("not_faster")
                                               : QString();
    }
    static Outcome outcomeFrom(const QString &name)
    {
        return name == QStringLiteral("faster")       ? Outcome::Faster
               : name == QStringLiteral("not_faster") ? Outcome::NotFaster
                                                      : Outcome::Undecided;
    }
    // As the browser and the CLI say it.
    static QString outcomeText(Outcome outcome)
    {
        return outcome == Outcome::Faster      ? QStringLiteral("faster kernel")
               : outcome == Outcome::NotFaster ? QStringLiteral("no faster kernel")
                                               : QStringLiteral("not measured yet");
    }
};
